/// sdrify's own version: the one place it is written (`--version`, the Debian package and the man page read it).
package enum SDRifyVersion {
    package static let number = "0.12.0"
}
