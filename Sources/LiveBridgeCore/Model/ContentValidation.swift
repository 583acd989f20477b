/// Content that the service would reject, found before anything is sent.
public struct ContentValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line per problem, each naming the field and the rule (`content.progress: 1.4 is outside 0…1`).
    public var problems: [String]

    public init(problems: [String]) {
        self.problems = problems
    }

    public var description: String { "invalid content: " + problems.joined(separator: "; ") }
}

/// The generic template's rules (PushWard spec and API reference §5–§7, §11).
public enum ContentRules {
    /// Named colours the service accepts, with their hex values.
    public static let namedColors: [String: String] = [
        "red": "#FF3B30", "orange": "#FF9500", "yellow": "#FFCC00", "green": "#34C759", "blue": "#007AFF",
        "purple": "#AF52DE", "pink": "#FF2D55", "indigo": "#5856D6", "teal": "#5AC8FA", "cyan": "#32ADE6",
        "mint": "#00C7BE", "brown": "#A2845E",
    ]

    /// Longest `state` and `subtitle` text.
    public static let maximumTextLength = 256
    /// Longest `icon`.
    public static let maximumIconLength = 128
    /// Longest URL.
    public static let maximumURLLength = 2048
    /// Longest action `title` / `icon`.
    public static let maximumActionLabelLength = 64
    /// Largest `duration` in seconds.
    public static let maximumDuration = 157_788_000

    /// True for a lower-case colour name or `#RRGGBB` / `#RRGGBBAA`.
    public static func isValidColor(_ text: String) -> Bool {
        if namedColors[text] != nil { return true }
        let scalars = Array(text.unicodeScalars)
        guard scalars.first == "#", scalars.count == 7 || scalars.count == 9 else { return false }
        return scalars.dropFirst().allSatisfy { $0.properties.isASCIIHexDigit }
    }

    /// `#RRGGBB` for a colour name or hex (alpha dropped, `#` added), nil when not a colour.
    public static func hexColor(_ text: String) -> String? {
        if let named = namedColors[text.lowercased()] { return named }
        var digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard digits.count == 6 || digits.count == 8, digits.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit)
        else { return nil }
        digits = String(digits.prefix(6))
        return "#" + digits.uppercased()
    }

    /// True for a slug matching `^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$`.
    public static func isValidSlug(_ slug: String) -> Bool {
        let bytes = Array(slug.utf8)
        guard (1...128).contains(bytes.count) else { return false }
        func isAlnum(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
        guard isAlnum(bytes[0]) else { return false }
        return bytes.dropFirst().allSatisfy { isAlnum($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// Throws a message naming the rule when `slug` is not a valid activity slug.
    public static func validateSlug(_ slug: String) throws(ContentValidationError) {
        guard isValidSlug(slug) else {
            throw ContentValidationError(problems: [
                "slug \"\(slug)\": must match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$ (letters, digits, '-' and '_', "
                    + "starting with a letter or digit, at most 128 characters)"
            ])
        }
    }

    /// Turns any text into a valid slug (`timer.washer` → `timer-washer`).
    public static func slugify(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else if scalar == "_" || scalar == "-" {
                result.unicodeScalars.append(scalar)
            } else {
                result += "-"
            }
        }
        while let first = result.first, first == "-" || first == "_" { result.removeFirst() }
        if result.isEmpty { result = "activity" }
        return String(result.prefix(128))
    }

    /// Throws when an activity name is empty or longer than 256 characters.
    public static func validateName(_ name: String) throws(ContentValidationError) {
        guard (1...256).contains(name.count) else {
            throw ContentValidationError(problems: ["name: must be 1 to 256 characters, got \(name.count)"])
        }
    }
}

extension GenericContent {
    /// Checks this content as a whole card once the tracker completes it: the generic template and
    /// `progress` added, validated as a document (what a source's or a command's content must pass).
    public func validateAsCard(progress: Double = 0) throws(ContentValidationError) {
        var card = self
        card.template = .value("generic")
        card.progress = .value(progress)
        try card.validate(asDocument: true)
    }

    /// Checks this content. As a `document` it must be complete (template and progress present,
    /// `live_progress` backed by `end_date`/`duration`); as a patch only present fields are checked.
    public func validate(asDocument: Bool) throws(ContentValidationError) {
        var problems: [String] = []
        func text(_ name: String, _ field: Field<String>, max: Int) {
            if let value = field.value, value.count > max {
                problems.append("content.\(name): \(value.count) characters, at most \(max) allowed")
            }
        }
        func color(_ name: String, _ field: Field<String>) {
            if let value = field.value, !ContentRules.isValidColor(value) {
                problems.append(
                    "content.\(name): \"\(value)\" is not a colour; use a lower-case name (red, green, blue, …) "
                        + "or #RRGGBB")
            }
        }
        if case .value(let name) = template, name != "generic" {
            problems.append("content.template: \"\(name)\" is not supported; use \"generic\"")
        }
        if asDocument, template.value == nil { problems.append("content.template: required (\"generic\")") }
        switch progress {
        case .value(let value):
            if !(value >= 0 && value <= 1) { problems.append("content.progress: \(value) is outside 0…1") }
        case .null:
            problems.append("content.progress: cannot be cleared; the generic template requires it")
        case .absent:
            if asDocument { problems.append("content.progress: required by the generic template") }
        }
        text("state", state, max: ContentRules.maximumTextLength)
        text("subtitle", subtitle, max: ContentRules.maximumTextLength)
        text("icon", icon, max: ContentRules.maximumIconLength)
        color("accent_color", accentColor)
        color("background_color", backgroundColor)
        color("text_color", textColor)
        if let remaining = remainingTime.value, remaining < 0 {
            problems.append("content.remaining_time: \(remaining) is negative")
        }
        if let start = startDate.value, let end = endDate.value, start >= end {
            problems.append("content.start_date: must be before end_date")
        }
        if let duration = duration.value {
            if let seconds = duration.seconds {
                if !(1...ContentRules.maximumDuration).contains(seconds) {
                    problems.append("content.duration: \(seconds) s is outside 1…\(ContentRules.maximumDuration)")
                }
            } else {
                problems.append("content.duration: use seconds or a string like \"90s\", \"10m\", \"1h30m\"")
            }
            if endDate.value != nil {
                problems.append("content.duration: do not send together with end_date (the service's rule is unclear)")
            }
        }
        if liveProgress.value == true {
            let anchored = endDate.value != nil || duration.value != nil
            if asDocument && !anchored {
                problems.append("content.live_progress: true needs end_date (or duration) to animate toward")
            } else if !asDocument && endDate == .null {
                problems.append("content.live_progress: true while clearing end_date leaves nothing to animate toward")
            }
        }
        if let image = imageURL.value {
            if !image.lowercased().hasPrefix("https://") || image.count > ContentRules.maximumURLLength {
                problems.append("content.image_url: must be an https URL of at most 2048 characters")
            } else if image.dropFirst(8).prefix(while: { $0 != "/" }).contains("@") {
                problems.append("content.image_url: must not carry user information")
            }
        }
        if let shape = imageShape.value, !["poster", "square", "circle"].contains(shape) {
            problems.append("content.image_shape: \"\(shape)\" is not poster, square or circle")
        }
        text("url", url, max: ContentRules.maximumURLLength)
        text("secondary_url", secondaryURL, max: ContentRules.maximumURLLength)
        for (name, field, isButton) in [
            ("tap_action", tapAction, false), ("url_action", urlAction, true),
            ("secondary_url_action", secondaryURLAction, true),
        ] {
            if let action = field.value {
                problems += action.problems(path: "content." + name, isButton: isButton, asDocument: asDocument)
            }
        }
        if !problems.isEmpty { throw ContentValidationError(problems: problems) }
    }
}

extension ActionObject {
    func problems(path: String, isButton: Bool, asDocument: Bool) -> [String] {
        var problems: [String] = []
        if let url {
            let lower = url.lowercased()
            if url.count > ContentRules.maximumURLLength {
                problems.append("\(path).url: longer than 2048 characters")
            }
            if let scheme = lower.split(separator: ":", maxSplits: 1).first,
                ["javascript", "data", "file", "vbscript"].contains(String(scheme))
            {
                problems.append("\(path).url: the \(scheme): scheme is not allowed")
            }
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
                let rest = lower.drop(while: { $0 != "/" }).dropFirst(2)
                if rest.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" }).isEmpty {
                    problems.append("\(path).url: an http(s) URL needs a host")
                }
            } else if !lower.contains(":") {
                problems.append("\(path).url: \"\(url)\" has no scheme")
            }
        } else if asDocument {
            problems.append("\(path).url: required")
        }
        if let method, !["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"].contains(method) {
            problems.append("\(path).method: \"\(method)\" is not GET, POST, PUT, PATCH, DELETE or HEAD")
        }
        if let headers, headers.reduce(0, { $0 + $1.key.utf8.count + $1.value.utf8.count }) > 1024 {
            problems.append("\(path).headers: more than 1024 bytes in total")
        }
        if let body, body.count > 1024 { problems.append("\(path).body: longer than 1024 characters") }
        if let title {
            if !isButton { problems.append("\(path).title: only buttons have a title") }
            if title.count > ContentRules.maximumActionLabelLength {
                problems.append("\(path).title: longer than 64 characters")
            }
        }
        if let icon {
            if !isButton { problems.append("\(path).icon: only buttons have an icon") }
            if icon.count > ContentRules.maximumActionLabelLength {
                problems.append("\(path).icon: longer than 64 characters")
            }
        }
        return problems
    }
}
