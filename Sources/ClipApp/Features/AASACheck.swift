import ClipCore
public import ClipStore
import ClipWire
public import StrictJSON

/// Does a host's AASA give a URL to an app (Apple's matching, `AASAEvaluator`)? `GET /v1/aasa/check?url=&app=`
/// answers it for the registry's own AASA of the URL's host (docs/http-api.md).
public enum AASACheck {
    /// The route's answer: both items are required (400 naming each one missing), the App ID and the URL
    /// are field errors (422), then the evaluation of the registry's AASA for the URL's host.
    public static func answer(url: String, app: String, registry: Registry) throws -> JSONValue {
        var errors: [FieldError] = []
        if url.isEmpty { errors.append(FieldError(field: "url", rule: "required", message: "is required")) }
        if app.isEmpty { errors.append(FieldError(field: "app", rule: "required", message: "is required")) }
        guard errors.isEmpty else { throw Problem(status: 400, detail: "give ?url= and ?app=", errors: errors) }
        do { _ = try AppID(app, field: "app") } catch { throw Problem(RegistryError.invalid(error.errors)) }
        guard let host = AASAEvaluator.URLParts(url)?.host, !host.isEmpty else {
            throw Problem(
                RegistryError.invalid([
                    FieldError(field: "url", rule: "url.format", message: "give an absolute URL such as https://shop.example/path")
                ]))
        }
        let document = try JSONParser.parse(try registry.aasa(host: host))
        let result = AASAEvaluator.evaluate(document, appID: app, url: url, domain: host)
        return AASAJSON.evaluation(url: url, app: app, host: host, result)
    }
}
