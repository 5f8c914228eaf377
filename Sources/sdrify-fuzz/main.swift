import Foundation
import SDRifyMedia

// Deterministic mutation fuzzing of `sdrify probe` (container headers, side data, first-picture decode):
//   sdrify-fuzz SECONDS SEED_FILE...
// Mutants are written to a temporary file and probed in this process, so a crash ends the run with a
// non-zero status; thrown errors are the expected outcome for broken files. The same seeds and run length
// give the same sequence of mutants.

struct Rng {
    var state: UInt64
    mutating func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 11 }
    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
}

/// Where the moov box sits: most mutations go there, where the parsers are.
func moovRange(_ d: [UInt8]) -> Range<Int> {
    var pos = 0
    while pos + 8 <= d.count {
        let size = Int(d[pos]) << 24 | Int(d[pos + 1]) << 16 | Int(d[pos + 2]) << 8 | Int(d[pos + 3])
        if d[pos + 4] == 0x6D, d[pos + 5] == 0x6F, d[pos + 6] == 0x6F, d[pos + 7] == 0x76 {
            return pos..<min(d.count, pos + max(size, 8))
        }
        guard size >= 8 else { break }
        pos += size
    }
    return 0..<d.count
}

func mutate(_ seed: [UInt8], _ rng: inout Rng) -> [UInt8] {
    var d = seed
    let count = 1 + rng.below(8)
    for _ in 0..<count {
        let region = rng.below(10) < 8 ? moovRange(d) : 0..<d.count  // recomputed: deletions move it
        guard !region.isEmpty else { break }
        let at = region.lowerBound + rng.below(region.count)
        switch rng.below(6) {
        case 0: d[at] ^= UInt8(1 << rng.below(8))  // bit flip
        case 1: d[at] = [0, 0xFF, 0x7F, 0x80, 1][rng.below(5)]  // interesting byte
        case 2:  // interesting 32-bit field
            let v: UInt32 = [0, 1, 0xFFFF_FFFF, 0x7FFF_FFFF, 0x8000_0000, 0x10000][rng.below(6)]
            for i in 0..<4 where at + i < d.count { d[at + i] = UInt8(truncatingIfNeeded: v >> (24 - 8 * i)) }
        case 3: d[at] = UInt8(truncatingIfNeeded: rng.next())  // random byte
        case 4: d.removeSubrange(at..<min(d.count, at + 1 + rng.below(64)))  // delete a run
        default: d = Array(d.prefix(max(8, at)))  // truncate
        }
        if d.isEmpty { break }
    }
    return d
}

let args = CommandLine.arguments
guard args.count >= 3, let seconds = Double(args[1]) else {
    FileHandle.standardError.write(Data("usage: sdrify-fuzz SECONDS SEED_FILE...\n".utf8))
    exit(64)
}
silenceFFmpegLogging()
let seeds = args.dropFirst(2).map { [UInt8](FileManager.default.contents(atPath: $0) ?? Data()) }.filter { !$0.isEmpty }
guard !seeds.isEmpty else { FileHandle.standardError.write(Data("sdrify-fuzz: no readable seeds\n".utf8)); exit(64) }
let mutantPath = FileManager.default.temporaryDirectory.appendingPathComponent("sdrify-fuzz-\(getpid()).mp4").path
defer { unlink(mutantPath) }
var rng = Rng(state: 0x5EED)
let deadline = Date().addingTimeInterval(seconds)
var runs = 0, rejected = 0, accepted = 0
while Date() < deadline {
    let mutant = mutate(seeds[runs % seeds.count], &rng)
    _ = FileManager.default.createFile(atPath: mutantPath, contents: Data(mutant))
    do { _ = try Prober.probe(path: mutantPath); accepted += 1 } catch { rejected += 1 }
    runs += 1
}
print("sdrify-fuzz: \(runs) mutants probed in \(Int(seconds)) s without a crash (\(accepted) read as video, \(rejected) refused)")
