import CKernels

/// How the process takes memory from the system, set once at start.
package enum MemoryPolicy {
    /// Picture-sized buffers straight from mmap and back to the system when freed. glibc otherwise raises its mmap
    /// threshold after the first such free and serves the next decoders' pictures from a heap that stays
    /// fragmented, so a composition's memory crept up with each clip opened (measured: 2 → 20 two-second 1080p
    /// clips, peak RSS 1.19× with glibc's sliding threshold, 1.08× with a fixed 128 KiB one).
    package static func install() { _ = sdrify_fixed_mmap_threshold(128 << 10) }
}
