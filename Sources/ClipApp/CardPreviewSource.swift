import AppleFormats
public import CardPreview
import ClipCodes
public import ClipCore
public import ClipStore
import FileFormats

/// Gathers what the card preview of one URL shows from a registry: the resolve answer with its
/// explanation, the app's name, the page's Smart App Banner and where the header image comes from.
/// Used by `GET /preview` and by `clipctl preview` on a local database.
public enum CardPreviewSource {
    /// How the page refers to the header image.
    public enum Images: Sendable {
        /// By its path on the server that serves the page (`/v1/images/{sha256}`).
        case served
        /// Inline, as a `data:` URI (RFC 2397), for a file opened on its own.
        case inline
    }

    /// - Parameters:
    ///   - codesOrigin: where the code routes are (`CardPreviewInput.codesOrigin`).
    ///   - at: the moment the card is shown for (docs/schedules.md; the clock's when nil).
    public static func input(
        registry: Registry, url: String, language: String?, acceptLanguage: String?, images: Images, codesOrigin: String?,
        at: Instant? = nil
    ) throws(RegistryError) -> CardPreviewInput {
        let problem: NormalizedURL.Problem?
        do { _ = try NormalizedURL(url); problem = nil } catch { problem = error }
        let urlIsValid = problem == nil
        let resolution: Resolution
        if let problem {
            // A URL that is no invocation URL gets the page that says why (422), where resolve may refuse it as input.
            _ = try Registry.preferences(language: language, acceptLanguage: acceptLanguage)
            resolution = Resolver.unresolvable(url, problem: problem)
        } else {
            resolution = try registry.resolve(url, language: language, acceptLanguage: acceptLanguage, at: at)
        }
        var appName = ""
        if case .advanced(let e, _) = resolution.match, let bundle = e.clip.bundleID.parent {
            appName = (try? registry.app(bundle).name) ?? ""
        }
        let banner: BannerPreview
        do {
            let page = try registry.banner(pageURL: url, at: at)
            banner = .tag(page.banner, notes: page.notes)
        } catch {
            banner = .unavailable(error.description)
        }
        let code: Result<String, CardPreviewInput.CodeRefusal>
        switch try registry.codeTarget(url: url) {
        case .success(let target): code = .success(target.url)
        case .failure(let refusal): code = .failure(.init(refusal.description))
        }
        var input = CardPreviewInput(
            resolution: resolution, urlIsValid: urlIsValid, appName: appName, banner: banner, imageSources: [:], codesOrigin: codesOrigin,
            code: code)
        if let sha = input.headerImage {
            switch images {
            case .served:
                input.imageSources[sha] = CardPreviewPage.imagePath + sha
            case .inline:
                if let image = try? registry.headerImage(sha) {
                    input.imageSources[sha] = "data:\(image.mediaType);base64,\(Base64.encode(image.bytes))"
                }
            }
        }
        return input
    }
}
