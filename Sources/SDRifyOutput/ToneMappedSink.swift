import SDRifyMedia

/// A sink that takes SDR pictures, fed by a render that keeps the HDR (an SDR file beside the HDR kept): each
/// picture is made SDR by `toSDR` (tone mapped once) and handed on with everything else as it comes.
package final class ToneMappedSink: MediaSink {
    private let inner: MediaSink
    private let toSDR: (Frame) throws -> Frame

    package init(_ inner: MediaSink, toSDR: @escaping (Frame) throws -> Frame) { self.inner = inner; self.toSDR = toSDR }

    package var audioBlock: Int { inner.audioBlock }
    package var errorsConcealed: Int { inner.errorsConcealed }
    package func begin(_ format: RenderFormat) throws { try inner.begin(format) }
    package func write(picture: Frame) throws { try inner.write(picture: try toSDR(picture)) }
    package func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        try inner.write(left: left, right: right, count: count)
    }
    package func finish() throws { try inner.finish() }
    package func commit() throws { try inner.commit() }
}
