import ClipCodes
import ClipCore
import ClipStore

extension InputField {
    /// A selection by labels (docs/sheets.md#selectors): every `KEY=VALUE` given must hold, a `KEY` alone asks
    /// only that the label be there. Read by `LabelSelector`, whose rules refuse a bad term.
    static func labelSelector(_ key: any WritableKeyPath<Input, [String]> & Sendable, of what: String = "experiences") -> InputField {
        .texts("label", key, "KEY=VALUE", help: "only \(what) with this label (KEY alone: with any value); several must all hold")
    }

    /// A print bundle's file names from labels (`CodeNameTemplate`, docs/codes.md#file-names).
    static func codeNames(_ key: any WritableKeyPath<Input, String?> & Sendable) -> InputField {
        .text("name", key, "TEMPLATE", help: "name the files from labels, such as '{city}-{station}' ({id}, {host} too)")
    }
}

extension LabelSelector {
    /// The selector of a field's terms, its errors named after the field.
    static func reading(_ terms: [String]) throws(RegistryError) -> LabelSelector {
        do { return try LabelSelector(terms) } catch { throw RegistryError.invalid(error.errors) }
    }
}

extension CodeNameTemplate {
    /// The template a field gives, if any, its errors as the input's.
    static func reading(_ text: String?) throws(RegistryError) -> CodeNameTemplate? {
        guard let text else { return nil }
        do { return try CodeNameTemplate(text) } catch { throw RegistryError.invalid(error.errors) }
    }
}
