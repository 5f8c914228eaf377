/// Takes every picture and keeps none: for a render run for what it measures on the way (`probe --scene-stats`).
final class DiscardingSink: MediaSink {
    let audioBlock = 1024
    func begin(_ format: RenderFormat) throws {}
    func write(picture: Frame) throws {}
    func finish() throws {}
}
