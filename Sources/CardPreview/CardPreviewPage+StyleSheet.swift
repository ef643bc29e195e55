extension CardPreviewPage {
    /// The page's one style sheet. The card follows iOS's App Clip card (Human Interface Guidelines,
    /// "App Clips"): a sheet with rounded top corners rising from the bottom of a dimmed screen, a 3:2
    /// header image (1800 × 1200 px), the title and subtitle, one wide action button and the app's name,
    /// in the system font (`-apple-system`, then `system-ui`, CSS Fonts Level 4 §4.1.1), light or dark
    /// after the reader's setting (`prefers-color-scheme`, Media Queries Level 5 §12.5). Its SHA-256 is
    /// the page's `style-src`: any change here changes the hash with it. Properties the Nu HTML
    /// Checker's CSS validator knows only (no `inset`, `aspect-ratio`, `color-scheme`: the page's
    /// `<meta name="color-scheme">` says that): the 370 px wide sheet's 3:2 image is 247 px high.
    static let styleSheet = """
        :root{--bg:#f2f2f7;--fg:#000;--muted:#6c6c70;--sheet:#fff;--rule:#d1d1d6;--tint:#007aff;\
        --dim:rgba(0,0,0,.35);--warn:#b25000;--bad:#d70015;--code:#e5e5ea}
        @media (prefers-color-scheme:dark){:root{--bg:#000;--fg:#fff;--muted:#98989f;--sheet:#1c1c1e;--rule:#38383a;\
        --tint:#0a84ff;--dim:rgba(0,0,0,.6);--warn:#ffb340;--bad:#ff6961;--code:#2c2c2e}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.4 -apple-system,system-ui,BlinkMacSystemFont,"Segoe UI",\
        Roboto,"Helvetica Neue",Arial,sans-serif}
        .top{padding:16px 24px 0}.top h1{font-size:22px;margin:0 0 4px}.url{margin:0;overflow-wrap:anywhere}
        main{display:flex;flex-wrap:wrap;gap:24px;padding:16px 24px 32px;align-items:flex-start}
        .screen{flex:0 0 390px;height:760px;border-radius:44px;background:linear-gradient(160deg,#5e5ce6,#30b0c7);\
        border:10px solid #1c1c1e;position:relative;overflow:hidden;display:flex;flex-direction:column;justify-content:flex-end}
        .screen::before{content:"";position:absolute;top:0;right:0;bottom:0;left:0;background:var(--dim)}
        .sheet{position:relative;margin:0;background:var(--sheet);border-radius:22px 22px 0 0;overflow:hidden;\
        box-shadow:0 -4px 24px rgba(0,0,0,.25)}
        .hero{display:block;width:100%;height:247px;object-fit:cover;background:var(--rule)}
        .hero.empty{display:flex;align-items:center;justify-content:center;color:var(--muted);font-size:13px}
        .content{padding:14px 20px 28px;text-align:center}
        .title{font-size:20px;font-weight:600;margin:4px 0 2px;overflow-wrap:anywhere}
        .subtitle{color:var(--muted);margin:0 0 16px;overflow-wrap:anywhere}
        .action{display:block;margin:0 0 14px;padding:13px;border-radius:12px;background:var(--tint);color:#fff;font-size:17px;\
        font-weight:600}
        .app{margin:0;color:var(--muted);font-size:13px;overflow-wrap:anywhere}
        .badge{font-weight:600;color:var(--fg)}
        .nocard{position:relative;margin:auto 24px;padding:20px;border-radius:18px;background:var(--sheet);text-align:center}
        .facts{flex:1 1 420px;min-width:0}
        section{margin:0 0 20px}h2{font-size:17px;margin:0 0 8px}
        code,pre{font-family:ui-monospace,"SF Mono",Menlo,Consolas,monospace;font-size:13px}
        code{overflow-wrap:anywhere}
        pre{background:var(--code);padding:8px 10px;border-radius:8px;white-space:pre-wrap;overflow-wrap:anywhere;margin:0 0 8px}
        .qr{margin:0 0 12px}.qr svg{display:block;max-width:100%;height:auto}.qr figcaption{color:var(--muted)}
        table{border-collapse:collapse;width:100%}th,td{text-align:start;vertical-align:top;padding:6px 8px;\
        border-bottom:1px solid var(--rule)}
        tr.chosen td{font-weight:600}
        a{color:var(--tint)}
        .warn{color:var(--warn)}.bad{color:var(--bad)}
        .limits,.notes,.downloads{margin:0 0 8px;padding-left:20px}
        """
}
