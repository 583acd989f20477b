/// Parses PushWard duration strings (`"90"`, `"90s"`, `"10m"`, `"1h30m"`).
public enum DurationText {
    /// Seconds in the text, or nil when it is not in the accepted form.
    public static func seconds(_ text: String) -> Int? {
        guard !text.isEmpty else { return nil }
        if text.allSatisfy(\.isASCIIDigit) { return Int(text) }
        var total = 0
        var digits = ""
        for character in text {
            if character.isASCIIDigit {
                digits.append(character)
                continue
            }
            guard !digits.isEmpty, let amount = Int(digits) else { return nil }
            switch character {
            case "h": total += amount * 3600
            case "m": total += amount * 60
            case "s": total += amount
            default: return nil
            }
            digits = ""
        }
        return digits.isEmpty ? total : nil
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
