/// The preview page, compiled into the binary: HTML, CSS and JavaScript as string literals, so
/// it works offline and with no file next to the executable (no CDN, no assets directory).
///
/// The page polls `api/state` every 500 ms and animates between polls itself: the bar is drawn
/// by `interpolationFunction`, the same rule as `DisplayAnchor.shown(at:model:)` for the
/// interpolating model, and a parity test runs both on a table of cases.
public enum PreviewPage {
    /// The name of the function `interpolationFunction` defines.
    public static let interpolationFunctionName = "shownProgress"

    /// The JavaScript function that draws the bar: `shownProgress(anchor, t)` with
    /// `anchor = {progress, time, endDate, live}` (Unix seconds) returns the fraction shown at `t`.
    ///
    /// PushWard API reference §12: with `live` and `endDate` after the push time t0, the bar
    /// glides `p0 + (1 − p0)(t − t0)/(E − t0)` for t0 ≤ t < E, and shows p0 again once E passes;
    /// otherwise it stands at p0 (clamped to 0…1). Exposed so tests evaluate the page's own code.
    public static let interpolationFunction = #"""
        function shownProgress(anchor, t) {
          const p0 = Math.min(1, Math.max(0, anchor.progress));
          const t0 = anchor.time, end = anchor.endDate;
          if (anchor.live !== true || typeof end !== "number" || !(end > t0)) return p0;
          if (t < t0 || t >= end) return p0;
          return p0 + (1 - p0) * (t - t0) / (end - t0);
        }
        """#

    /// The whole page with `title` (HTML-escaped) in the header.
    public static func html(title: String) -> String {
        let escaped = escapeHTML(title)
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escaped)</title>
            <style>
            \(style)
            </style>
            </head>
            <body>
            <header class="top">
              <div class="brand">
                <div class="mark"><svg viewBox="0 0 24 24" fill="none" stroke="#fff" stroke-width="1.8" \
            stroke-linecap="round"><path d="M2.5 18h19M3.5 18C6 8.5 18 8.5 20.5 18M8 18v-5.2M12 18v-6.7M16 18v-5.2"/>\
            </svg></div>
                <div><h1 id="title">\(escaped)</h1><div class="sub" id="sink">LiveBridge preview</div></div>
              </div>
              <div class="totals" id="totals"></div>
              <div class="conn" id="conn"><span class="dot"></span><span id="clock">connecting…</span></div>
            </header>
            <main id="board"><div class="empty">Loading…</div></main>
            <footer>Each card is drawn the way the PushWard app draws the generic template on the Lock Screen \
            and in the Dynamic Island. With <code>live_progress</code> the bar glides from the pushed progress \
            to 100&nbsp;% at <code>end_date</code> and falls back to the pushed progress if <code>end_date</code> \
            passes without a push; the push log shows every request the bridge made and what it changed. \
            Icons are stand-ins for SF Symbols and Material Design Icons. Refreshed every 0.5&nbsp;s.</footer>
            <script>
            "use strict";
            \(interpolationFunction)
            \(iconScript)
            \(script)
            </script>
            </body>
            </html>

            """
    }

    static func escapeHTML(_ text: String) -> String {
        var output = ""
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }
}
