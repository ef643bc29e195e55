import Foundation
import ArgParse
import ClipCore
import ClipStore
import StrictJSON

/// What the commands in Context share (the catalog commands are operations: ClipApp/Features/).
extension Context {
    func parse<T>(_ body: () throws(ValidationFailure) -> T) throws -> T {
        do { return try body() } catch { throw RegistryError.invalid(error.errors) }
    }
}
