import AppleFormats
public import ClipCore
import FileFormats
import QRCode

/// The preview of the App Clip card an invocation URL gets: one HTML document (HTML Living Standard)
/// with its own style sheet and no script, showing the card as iOS draws it (Human Interface Guidelines,
/// "App Clips": header image, title, subtitle, one action button, the app's name) beside the QR code,
/// the NFC NDEF bytes, the resolve explanation, the Smart App Banner tag and links to the code files.
/// A default-experience answer shows the default card, said to be one; no match shows no card.
public struct CardPreviewPage: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case advanced
        case defaultExperience = "default"
        case noMatch = "no-match"
    }

    public let kind: Kind
    public let html: String
    /// The `style-src` source of the page's one style sheet: `'sha256-…'` (CSP Level 3 §2.3.1,
    /// "hash-source"), so the policy needs no `'unsafe-inline'`.
    public let styleSource: String

    /// The path a header image is served at on the registry, followed by its SHA-256 in hexadecimal.
    public static let imagePath = "/v1/images/"
    /// The most candidates the explanation lists; a host may hold thousands.
    public static let maxExplainedCandidates = 200
    /// Pixels per QR module: large enough for a camera (and zbarimg) to read from a screenshot.
    static let qrPixelsPerModule = 5

    /// The Content-Security-Policy (W3C CSP Level 3) for the page: nothing loads but images from the
    /// same origin or `data:` and the page's own style sheet by its hash; no script (no `script-src`,
    /// so `default-src 'none'` refuses it), no plugin, no form target, no base URL, no framing.
    public var contentSecurityPolicy: String {
        "default-src 'none'; img-src 'self' data:; style-src \(styleSource); base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// The same policy as a `<meta http-equiv>` may carry it: `frame-ancestors` is ignored there
    /// (CSP Level 3 §3.3), so a file opened on its own keeps the rest.
    static func metaPolicy(styleSource: String) -> String {
        "default-src 'none'; img-src 'self' data:; style-src \(styleSource); base-uri 'none'; form-action 'none'"
    }

    public static func render(_ input: CardPreviewInput) -> CardPreviewPage {
        let styleSource = "'sha256-\(Base64.encode(SHA256.hash(Array(styleSheet.utf8))))'"
        let r = input.resolution
        let kind: Kind
        var card = ""
        var summary = ""
        switch r.match {
        case .advanced(let e, let language):
            kind = .advanced
            let text = e.localizations[language] ?? e.defaultCard
            card = cardHTML(
                title: text.title, subtitle: text.subtitle, action: e.action, appName: input.appName,
                language: language.tag, image: input.imageSource(e.headerImage), hasImage: e.headerImage != nil)
            summary = """
                <p>This URL gets the <strong>advanced experience \(e.id)</strong>, registered at \
                <code>\(esc(e.url.canonical))</code>, of the clip <code>\(esc(e.clip.rawValue))</code>, \
                in \(esc(language.tag))\(e.localizations[language] == nil ? " (its default language)" : "").\
                \(e.status == .active ? "" : " It is deactivated.")</p>
                \(limitsHTML(title: text.title, subtitle: text.subtitle))
                """
        case .defaultExperience(let fallback, let locale):
            kind = .defaultExperience
            let localization = locale.flatMap { fallback.experience.localizations[$0] }
            let image = localization?.headerImage
            card = cardHTML(
                title: fallback.appName, subtitle: localization?.subtitle ?? "", action: fallback.experience.action,
                appName: fallback.appName, language: locale ?? "", image: input.imageSource(image), hasImage: image != nil)
            summary = """
                <p>No advanced experience covers this URL: it gets the <strong>default experience</strong> of the clip \
                <code>\(esc(fallback.experience.clip.rawValue))</code>\(locale.map { ", locale <code>\(esc($0))</code>" } ?? ""). \
                Its card has no title of its own: iOS shows the app's name there. iOS shows it from \
                Safari's Smart App Banner and links in Messages.</p>
                \(fallback.appName.isEmpty ? "<p class=\"warn\">The app has no name in the registry, so the title is empty here.</p>" : "")
                """
        case nil:
            kind = .noMatch
            card = """
                <div class="nocard" role="note"><p><strong>No App Clip card</strong></p>\
                <p>iOS shows no card for this URL.</p></div>
                """
            summary = """
                <p><strong>\(input.urlIsValid ? "No match" : "Not an invocation URL")</strong>: \(esc(r.reason ?? "no match"))</p>
                """
        }
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <meta http-equiv="Content-Security-Policy" content="\(esc(metaPolicy(styleSource: styleSource)))">
            <meta name="color-scheme" content="light dark">
            <title>App Clip card: \(HTMLText.visible(r.invocationURL))</title>
            <style>\(styleSheet)</style>
            </head>
            <body class="\(kind.rawValue)">
            <header class="top"><h1>App Clip card preview</h1><p class="url"><code>\(HTMLText.visible(r.invocationURL))</code></p></header>
            <main>
            <div class="screen">\(card)</div>
            <div class="facts">
            <section><h2>What this URL gets</h2>\(summary)\(notesHTML(r.notes))</section>

            """
        html += codesHTML(input, kind: kind)
        html += bannerHTML(input.banner)
        html += input.urlIsValid ? explanationHTML(r.candidates) : ""
        html += "</div>\n</main>\n</body>\n</html>\n"
        return CardPreviewPage(kind: kind, html: html, styleSource: styleSource)
    }

    // MARK: The card

    /// The label iOS puts on the action button (Human Interface Guidelines, "App Clips": "View" for
    /// media and information, "Play" for games, "Open" otherwise). iOS writes it in the device's
    /// language, which a page cannot know: it is shown in English and marked so (`lang="en"`).
    public static func label(_ action: Action) -> String {
        switch action {
        case .open: "Open"
        case .view: "View"
        case .play: "Play"
        }
    }

    /// Languages written right to left (their primary language subtag, BCP 47): the `dir` of the card
    /// (HTML Living Standard §3.2.6.4 "The dir attribute").
    static let rightToLeft: Set<String> = ["ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ckb", "iw"]

    static func direction(_ language: String) -> String {
        let primary = language.split(separator: "-").first.map { $0.lowercased() } ?? ""
        return rightToLeft.contains(primary) ? "rtl" : "ltr"
    }

    static func cardHTML(
        title: String, subtitle: String, action: Action, appName: String, language: String, image: String?, hasImage: Bool
    ) -> String {
        let hero =
            if let image {
                "<img class=\"hero\" src=\"\(esc(image))\" width=\"360\" height=\"240\" alt=\"Header image\">"
            } else {
                "<div class=\"hero empty\"><span>\(hasImage ? "Header image not available" : "No header image")</span></div>"
            }
        let lang = language.isEmpty ? "" : " lang=\"\(esc(language))\" dir=\"\(direction(language))\""
        return """
            <section class="sheet" aria-label="App Clip card"\(lang)>
            \(hero)
            <div class="content">
            <h2 class="title">\(esc(title))</h2>
            <p class="subtitle">\(esc(subtitle))</p>
            <p class="action" lang="en" dir="ltr">\(label(action))</p>
            <p class="app"><span class="badge" lang="en" dir="ltr">App Clip</span> \(esc(appName))</p>
            </div>
            </section>
            """
    }

    /// Each text's length against the card's limits (Human Interface Guidelines, "App Clips": title 30,
    /// subtitle 56 characters; WWDC20 session 10146 advised 18 and 43).
    static func limitsHTML(title: String, subtitle: String) -> String {
        func line(_ name: String, _ text: String, max: Int, advised: Int) -> String {
            let count = text.count
            let state = count > max ? " class=\"bad\"" : count > advised ? " class=\"warn\"" : ""
            let advice = count > max ? ": over the limit" : count > advised ? ": over the older advice of \(advised)" : ""
            return "<li\(state)>\(name): \(count) of \(max) characters\(advice)</li>"
        }
        return "<ul class=\"limits\">"
            + line("Title", title, max: TextLimits.titleMax, advised: TextLimits.titleAdvised)
            + line("Subtitle", subtitle, max: TextLimits.subtitleMax, advised: TextLimits.subtitleAdvised)
            + "</ul>\n"
    }

    // MARK: Beside the card

    static func notesHTML(_ notes: [String]) -> String {
        notes.isEmpty ? "" : "<ul class=\"notes\">" + notes.map { "<li>\(esc($0))</li>" }.joined() + "</ul>"
    }

    /// The QR code and the NFC tag's NDEF message for the invocation URL, and the code files' links.
    static func codesHTML(_ input: CardPreviewInput, kind: Kind) -> String {
        let url: String
        switch input.code {
        case .success(let target): url = target
        case .failure(let refusal): return "<section><h2>Codes</h2><p>No code: \(esc(refusal.reason))</p></section>\n"
        }
        var out = "<section class=\"codes\"><h2>QR code</h2>\n"
        do {
            let svg = try QRCode.encode(url).svg(size: .pixelsPerModule(qrPixelsPerModule))
            // The XML declaration has no place in an HTML document (HTML Living Standard §13.1.2.3: foreign elements).
            let element = svg.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).last.map(String.init) ?? svg
            out += "<figure class=\"qr\">\(element)<figcaption><code>\(HTMLText.visible(url))</code></figcaption></figure>\n"
        } catch {
            out += "<p class=\"bad\">No QR code: \(esc(error.description))</p>\n"
        }
        out += "<h2>NFC tag (NDEF message)</h2>\n"
        do {
            let message = try NDEFMessage.uri(url)
            let tag = message.smallestTag.map { "fits an \($0.rawValue) (\($0.userMemoryBytes) bytes of user memory)" } ?? "fits no NTAG21x"
            out += "<p>One URI record, \(message.bytes.count) bytes; \(esc(tag)).</p>\n"
            out += "<pre class=\"hex\"><code>\(message.hex(separator: " "))</code></pre>\n"
        } catch {
            out += "<p class=\"bad\">No NDEF message: \(esc(error.description))</p>\n"
        }
        out += "<h2>Downloads</h2>\n"
        let query = "url=\(PercentEncoding.encode(url.utf8))"
        let files = [("svg", "QR code, SVG"), ("png", "QR code, PNG"), ("ndef", "NDEF message, binary")]
        if let origin = input.codesOrigin {
            out += "<ul class=\"downloads\">"
            for (format, name) in files {
                out += "<li><a href=\"\(esc(origin))/v1/codes?\(query)&amp;format=\(format)\">\(name)</a></li>"
            }
            out += "</ul>\n"
        } else {
            out += "<p>From a running registry (<code>clipctl serve</code>):</p><ul class=\"downloads\">"
            for (format, name) in files { out += "<li>\(name): <code>GET /v1/codes?\(esc(query))&amp;format=\(format)</code></li>" }
            out += "</ul>\n"
        }
        return out + "</section>\n"
    }

    /// The Smart App Banner tag for the page at this URL (Apple, "Promoting Apps with Smart App Banners").
    static func bannerHTML(_ banner: BannerPreview) -> String {
        var out = "<section><h2>Smart App Banner</h2>\n"
        switch banner {
        case .tag(let tag, let notes):
            out += "<p>In the <code>head</code> of the page at this URL:</p>\n<pre><code>\(esc(tag.metaTag))</code></pre>\n"
            out += notesHTML(notes)
        case .unavailable(let why):
            out += "<p>None: \(esc(why))</p>\n"
        }
        return out + "</section>\n"
    }

    /// Every candidate on the host: the winner, the ones that lost and why, and the near misses.
    static func explanationHTML(_ candidates: [CandidateReport]) -> String {
        var out = "<section><h2>Why</h2>\n"
        guard !candidates.isEmpty else { return out + "<p>No advanced experience is registered on this host.</p></section>\n" }
        out += "<table><thead><tr><th>Experience</th><th>Outcome</th><th>Why</th></tr></thead><tbody>\n"
        for c in candidates.prefix(maxExplainedCandidates) {
            let near = c.nearMiss.map { "<br><span class=\"warn\">Near miss: \(esc($0))</span>" } ?? ""
            out += """
                <tr class="\(c.outcome.rawValue)"><td>\(c.id) <code>\(esc(c.url))</code>\
                \(c.status == .active ? "" : " (\(esc(c.status.rawValue.lowercased())))")</td>\
                <td>\(c.outcome.rawValue)</td><td>\(esc(c.detail))\(near)</td></tr>

                """
        }
        out += "</tbody></table>\n"
        if candidates.count > maxExplainedCandidates {
            out += "<p>\(candidates.count - maxExplainedCandidates) more candidates are not listed.</p>\n"
        }
        return out + "</section>\n"
    }

    static func esc(_ text: String) -> String { HTMLText.escaped(text) }
}

extension CardPreviewInput {
    func imageSource(_ sha256: String?) -> String? { sha256.flatMap { imageSources[$0] } }
}
