import Foundation
import Testing
import TestSupport
import TidingsCrypto

/// SHA-256 from libcrypto, checked against coreutils' `sha256sum`.
@Suite struct SHA256Tests {
    /// Bytes of `length` that are not all alike, so that a misplaced block shows.
    private static func bytes(_ length: Int) -> [UInt8] {
        (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ length &* 7) }
    }

    /// `sha256sum`'s digests of `lengths`, each as one file's bytes.
    private static func referenceDigests(of lengths: [Int]) throws -> [Int: String] {
        let directory = TemporaryDirectory("tidings-sha256")
        var paths: [String] = []
        for length in lengths {
            let path = directory.file("\(length).bin")
            try Data(bytes(length)).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let run = try ProcessRunner.run("/usr/bin/sha256sum", paths)
        try #require(run.status == 0, "\(run.standardError)")
        var digests: [Int: String] = [:]
        for line in run.standardOutput.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 2, let name = fields[1].split(separator: "/").last,
                  let length = Int(name.dropLast(4)) else { continue }
            digests[length] = String(fields[0])
        }
        return digests
    }

    @Test func everyLengthFromNoneToThreeHundredAgreesWithSha256sum() throws {
        // 63 modulo 64 among them: the lengths the hand-written digest got wrong.
        let lengths = Array(0...300) + [703, 4_095, 65_537]
        let reference = try Self.referenceDigests(of: lengths)
        #expect(reference.count == lengths.count)
        for length in lengths {
            #expect(try SHA256.hex(of: Self.bytes(length)) == reference[length], "length \(length)")
        }
    }

    @Test func bytesTakenInPiecesGiveTheDigestOfTheWhole() throws {
        let whole = Self.bytes(1_000)
        let expected = try SHA256.hex(of: whole)
        for piece in [1, 7, 63, 64, 65, 999] {
            var hash = try SHA256()
            var start = 0
            while start < whole.count {
                let end = min(start + piece, whole.count)
                try hash.update(whole[start..<end])
                start = end
            }
            #expect(SHA256.hexadecimal(try hash.finish()) == expected, "pieces of \(piece)")
        }
    }

    @Test func theKnownAnswersOfFIPS180() throws {
        #expect(try SHA256.hex(of: Array("abc".utf8))
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try SHA256.hex(of: [UInt8]())
            == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func aMissingLibraryIsAnErrorWithItsCode() {
        #expect {
            _ = try CryptoLibrary(path: "libcrypto-that-is-not-here.so.3")
        } throws: { error in
            (error as? CryptoError)?.code == .noLibrary
        }
    }

    @Test func theLibraryIsOpenSSLThree() throws {
        let library = try CryptoLibrary.shared.get()
        #expect(library.version.hasPrefix("OpenSSL 3"))
    }
}
