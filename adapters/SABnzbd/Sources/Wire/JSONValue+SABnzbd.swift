import LiveBridgeCore

/// Lenient readers for SABnzbd's mixed field types: queue numbers arrive as strings
/// (`"61.92"`), history numbers as integers, and both may be missing or `null`.
extension JSONValue {
    /// A number, from a number or a numeric string; nil otherwise.
    var sabNumber: Double? {
        guard let number = lenientDouble, number.isFinite else { return nil }
        return number
    }

    /// A count (`noofslots`, `ppslots`): a whole, non-negative number below 10¹⁵ (what an
    /// integer holds exactly); nil for anything else, so a garbled count falls back, never traps.
    var sabCount: Int? {
        guard let number = sabNumber, number >= 0, number < 1e15 else { return nil }
        return Int(number.rounded())
    }

    /// A string, or a number written as text; nil for anything else.
    var sabText: String? {
        switch self {
        case .string(let text): return text
        case .int(let value): return String(value)
        case .double(let value):
            return value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        default: return nil
        }
    }

    /// A boolean, also from `1`/`0` and `"true"`/`"false"` (older versions and proxies).
    var sabFlag: Bool? {
        switch self {
        case .bool(let flag): return flag
        case .int(let value): return value != 0
        case .string(let text):
            switch text.lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no", "": return false
            default: return nil
            }
        default: return nil
        }
    }

    /// `labels` is a list of strings, but a single string has been seen too.
    var sabLabels: [String] {
        switch self {
        case .array(let elements): return elements.compactMap(\.sabText).filter { !$0.isEmpty }
        case .string(let text): return text.isEmpty ? [] : [text]
        default: return []
        }
    }
}

/// SABnzbd's units: `mb`/`mbleft` are MiB, `kbpersec` is KiB/s.
enum SABnzbdUnits {
    static let mebibyte = 1_048_576.0
    static let kibibyte = 1024.0
}
