import SDRifyMedia

/// Takes every picture and keeps none: for a render run for what it measures on the way (`probe --scene-stats`).
package final class DiscardingSink: MediaSink {
    package let audioBlock = 1024

    package init() {}
    package func begin(_ format: RenderFormat) throws {}
    package func write(picture: Frame) throws {}
    package func finish() throws {}
}
