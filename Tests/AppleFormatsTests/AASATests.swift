import ClipCore
import StrictJSON
import Testing
@testable import AppleFormats

struct AASATests {
    @Test func goldenOutputIsCompactSortedAndDeterministic() throws {
        let content = AASAContent(
            host: "shop.example",
            clips: [try AppID("ZYXWV98765.com.other.App.Clip"), try AppID("ABCDE12345.com.example.MyApp.Clip")],
            details: [
                ApplinksDetails(
                    app: try AppID("ABCDE12345.com.example.MyApp"), components: [["/": "/help/*", "exclude": true], ["/": "/*"]])
            ],
            webcredentials: [try AppID("ABCDE12345.com.example.MyApp")])
        let bytes = try AASAGenerator.bytes(content)
        let expected =
            #"{"appclips":{"apps":["ABCDE12345.com.example.MyApp.Clip","ZYXWV98765.com.other.App.Clip"]},"applinks":{"apps":[],"details":[{"appIDs":["ABCDE12345.com.example.MyApp"],"components":[{"/":"/help/*","exclude":true},{"/":"/*"}]}]},"webcredentials":{"apps":["ABCDE12345.com.example.MyApp"]}}"#
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        var shuffled = content
        shuffled.clips.reverse()
        #expect(try AASAGenerator.bytes(shuffled) == bytes)
    }

    @Test func applinksAlwaysPresentAndWebcredentialsOnlyWhenConfigured() throws {
        let bytes = try AASAGenerator.bytes(AASAContent(host: "a.example", clips: [try AppID("ABCDE12345.com.example.MyApp.Clip")]))
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"appclips":{"apps":["ABCDE12345.com.example.MyApp.Clip"]},"applinks":{"apps":[],"details":[]}}"#)
    }

    @Test func refusesOver128KBNamingTheSize() throws {
        let components = JSONValue.array(
            (0..<3000).map { i in .object(["/": .string("/path/number/\(i)/*"), "comment": .string(String(repeating: "x", count: 20))]) })
        let content = AASAContent(
            host: "big.example", clips: [],
            details: [ApplinksDetails(app: try AppID("ABCDE12345.com.example.MyApp"), components: components)])
        let error = #expect(throws: AASAGenerator.TooLarge.self) { try AASAGenerator.bytes(content) }
        #expect(error?.size ?? 0 > 131072)
        #expect(error?.description.contains("\(error?.size ?? -1) bytes") == true)
    }

    @Test func applinksValidation() throws {
        func rules(_ json: String, variables: Set<String> = []) throws -> [String] {
            ApplinksValidator.validateComponents(try JSONParser.parse(json), variables: variables).map(\.rule)
        }
        #expect(
            try rules(
                ##"[{"/":"/a/*","?":{"id":"?*"},"#":"x","exclude":false,"comment":"c","caseSensitive":false,"percentEncoded":true}]"##)
                == [])
        #expect(try rules(#"[{"/":"/a","path":"/b"}]"#) == ["applinks.key"])
        #expect(try rules(#"[{"?":5}]"#) == ["applinks.query"])
        #expect(try rules(#"[{"?":{"id":5}}]"#) == ["applinks.query"])
        #expect(try rules(#"[{"/":5}]"#) == ["type"])
        #expect(try rules(#"[{"exclude":"yes"}]"#) == ["type"])
        #expect(try rules(#"{"/":"/a"}"#) == ["type"])
        #expect(try rules(#"[{"/":"/$(lang)_$(region)/$(food)/"}]"#) == ["applinks.variable"])
        #expect(try rules(#"[{"/":"/$(lang)_$(region)/$(food)/"}]"#, variables: ["food"]) == [])
        #expect(try rules(#"[{"/":"/$(lang"}]"#) == ["applinks.variable"])
        let variables = ApplinksValidator.validateSubstitutionVariables(
            try JSONParser.parse(#"{"food":["burger","pizza"],"a(b":["x"],"bad":["$(food)"],"lang":["x"],"n":"x"}"#))
        #expect(variables.map(\.rule) == ["applinks.variableName", "applinks.variableValue", "applinks.variableName", "type"])
        #expect(
            ApplinksValidator.validateDefaults(try JSONParser.parse(#"{"caseSensitive":false,"exclude":true}"#)).map(\.rule) == [
                "applinks.defaults"
            ])
    }
}
