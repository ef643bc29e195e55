import ArgParse
import ClipApp
import ClipCore
import Testing

@testable import ClipCLI

/// The experience edit form from `update`'s declaration (docs/application-layer.md#a-form-from-the-declaration): every
/// positional and option `clipctl update` takes, as the parser has them (`ClipCLI.root`), is a control of the form
/// with its type, bounds and help.
struct FormDescriptionTests {
    let form = FormDescription(ExperienceUpdate.binding)
    let bulk = FormDescription(ExperienceBulkUpdate.binding)
    let command = GeneratedDocumentationTests.everyCommand().first { $0.path == ["update"] }?.spec

    @Test func everyArgumentTheCommandTakesIsAControlWithItsTypeAndHelp() throws {
        let command = try #require(command)
        #expect(form.method == "PATCH" && form.path == "/v1/experiences/{id}")
        #expect(!command.positionals.isEmpty && command.options.count >= 10)
        for positional in command.positionals {
            let control = try #require(form.controls.first { $0.option == positional.name }, "\(positional.name)")
            // The route's path parameter, which the command may leave out for `--where` (`ExperienceBulkUpdate`).
            #expect(control.place == .path && control.required && positional.optional && control.help == positional.help)
        }
        for option in command.options {
            if let control = form.controls.first(where: { $0.option == option.name }) {
                #expect(option.help == control.help + (control.defaultValue.map { " (default \($0))" } ?? ""), "--\(option.name)")
                #expect(option.isFlag == (control.input == .checkbox), "--\(option.name)")
                #expect(option.repeatable == control.repeatable, "--\(option.name)")
                #expect(option.valueName == (option.isFlag ? nil : control.placeholder), "--\(option.name)")
            } else if let control = bulk.controls.first(where: { $0.option == option.name }) {
                // `--where` and its guards choose the bulk route, whose form they belong to.
                #expect(option.help == control.help, "--\(option.name)")
                #expect(option.isFlag == (control.input == .checkbox), "--\(option.name)")
            } else if option.name == "yes" {
                // The command's confirmation of a bulk change: over the API, a request without `dryRun` is the confirmation.
                #expect(option.isFlag)
            } else {
                // A negation is its field's clearing (`--no-category`: the body's `category` null).
                let cleared = form.controls.first { $0.clearing?.option == option.name }
                #expect(cleared?.clearing?.help == option.help, "--\(option.name) is no control of the form")
            }
        }
    }

    @Test func eachControlSaysItsInputItsBoundsAndItsRules() throws {
        func control(_ option: String) throws -> FormDescription.Control { try #require(form.controls.first { $0.option == option }) }
        #expect(try control("title").maxLength == TextLimits.titleMax && control("subtitle").maxLength == TextLimits.subtitleMax)
        #expect(try control("title").rules.map(\.rule) == ["length", "empty"])
        #expect(try control("action").input == .select(Action.allCases.map(\.rawValue)) && control("action").defaultValue == "OPEN")
        #expect(try control("language").input == .select(Language.allCases.map(\.tag)) && control("language").defaultValue == "en")
        #expect(try control("category").clearing?.option == "no-category" && control("category").rules.map(\.rule) == ["enum"])
        #expect(try control("place").input == .json && control("place").clearing?.help == "clear the place")
        #expect(try control("image").input == .file && control("image").name == "headerImage")
        #expect(try control("powered-by").input == .checkbox && control("powered-by").clearing?.option == "not-powered-by")
        #expect(try control("ID|URL").rules.map(\.rule) == ["required", "identifiers"] && control("ID|URL").label == "ID")
        #expect(try control("remove-localization").name == "localizations" && control("remove-localization").label == "Remove localization")
        #expect(try control("url").place == .body && !control("url").required && control("url").label == "URL")
    }

    /// The experience's declared fields feed the form and the command (`FieldFacts.init(_:)`): each one a client sets
    /// (all but `status`, which `activate` and `deactivate` set) is a control, with the table's option, placeholder and help.
    @Test func everyDeclaredFieldOfAnExperienceIsAControl() throws {
        for field in ExperienceField.all where field.name != ExperienceField.status.name {
            let control = try #require(form.controls.first { $0.name == field.name }, "\(field.name) is no field of update")
            #expect(control.option == field.option.name, "\(field.name)")
            // `update --powered-by` says what it does to an experience that exists.
            #expect(control.help == (field.kind == .flag ? "set isPoweredBy" : field.option.help), "\(field.name)")
            #expect(control.placeholder == (field.option.valueName ?? ""), "\(field.name)")
        }
    }
}
