import Testing
import TidingsBase

/// Base64 read back and base64url, as push messages and Web Push keys carry them.
@Suite struct Base64PushTests {
    @Test func standardBase64RoundTripsWithOrWithoutPadding() {
        for count in 0..<40 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) }
            let text = Base64.encode(bytes)
            #expect(Base64.decode(text) == bytes)
            #expect(Base64.decode(String(text.filter { $0 != "=" })) == bytes)
            #expect(Base64.decodeURL(Base64.encodeURL(bytes)) == bytes)
            #expect(!Base64.encodeURL(bytes).contains { "+/=".contains($0) })
        }
    }

    @Test func rfc4648VectorsAndWhatIsRefused() {
        #expect(Base64.decode("Zm9vYmFy") == Array("foobar".utf8))
        #expect(Base64.decode("Zm9vYg==") == Array("foob".utf8))
        #expect(Base64.encodeURL([0xFB, 0xFF]) == "-_8")
        #expect(Base64.decodeURL("-_8") == [0xFB, 0xFF])
        // Each alphabet refuses the other's digits; whitespace, a lone digit and extra padding are refused.
        #expect(Base64.decode("-_8") == nil)
        #expect(Base64.decodeURL("+/8=") == nil)
        #expect(Base64.decode("Zm9v YmFy") == nil)
        #expect(Base64.decode("Z") == nil)
        #expect(Base64.decode("Zg===") == nil)
    }
}
