/// Parses PushWard duration strings (`"90"`, `"90s"`, `"10m"`, `"1h30m"`).
public enum DurationText {
    /// Seconds in the text, or nil when it is not in the accepted form or more than an integer holds.
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
            let unit: Int
            switch character {
            case "h": unit = 3600
            case "m": unit = 60
            case "s": unit = 1
            default: return nil
            }
            let (seconds, overflowed) = amount.multipliedReportingOverflow(by: unit)
            let (sum, overflowedSum) = total.addingReportingOverflow(seconds)
            guard !overflowed, !overflowedSum else { return nil }
            total = sum
            digits = ""
        }
        return digits.isEmpty ? total : nil
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
