/// The printer error codes LiveBridge can name, and the rules for reading them.
///
/// `print_error` is a 32-bit code written `AAAA_BBBB` in hex; the lower half hints the class:
/// `xxxx_4xxx` stopped the task, `xxxx_8xxx` paused it, `xxxx_Cxxx` is informational. Bambu's
/// full catalogue is large and changes with firmware; this is a small table of codes whose meaning
/// is well established, worded short enough for a Lock Screen card. Anything else is shown by its
/// code, which is what users search for in Bambu's wiki.
public enum BambuErrorCatalog {
    /// `0300_400C`: the task was cancelled by the user.
    public static let userCancel = 0x0300_400C
    /// `0500_400E`: printing was cancelled (seen from the screen and the app).
    public static let printingCancelled = 0x0500_400E

    /// Known `print_error` codes and their short texts.
    public static let texts: [Int: String] = [
        0x0300_400C: "Cancelled",
        0x0500_400E: "Cancelled",
        0x0300_4000: "Z-axis homing failed",
        0x0300_4002: "Auto bed leveling failed",
        0x0300_4057: "Z-axis step loss",
        0x0300_8000: "Paused for an unknown reason",
        0x0300_8001: "Paused by the user",
        0x0300_800F: "Door open",
        0x0300_8013: "Pause command in the file",
        0x0300_8015: "Filament runout (external spool)",
        0x0500_400C: "No MicroSD card — insert one and restart the job",
        0x0700_8004: "AMS failed to pull back filament",
        0x0700_8006: "Cannot feed filament into the extruder",
    ]

    /// True for the codes a user cancel produces.
    public static func isCancel(_ code: Int) -> Bool {
        code == userCancel || code == printingCancelled
    }

    /// True when the code's class says the task was stopped (`xxxx_4xxx`).
    public static func isFatal(_ code: Int) -> Bool {
        code & 0xF000 == 0x4000
    }

    /// True when the code's class says the print was paused (`xxxx_8xxx`).
    public static func isPause(_ code: Int) -> Bool {
        code & 0xF000 == 0x8000
    }

    /// `0300_400C`.
    public static func code(_ value: Int) -> String {
        let unsigned = UInt32(truncatingIfNeeded: value)
        return hex4(Int(unsigned >> 16)) + "_" + hex4(Int(unsigned & 0xFFFF))
    }

    /// The short text for a code: the table's, else `error 0300_4057`.
    public static func text(_ value: Int) -> String {
        texts[value] ?? "error \(code(value))"
    }

    /// Four upper-case hex digits.
    static func hex4(_ value: Int) -> String {
        let digits = Array("0123456789ABCDEF")
        var text = ""
        for shift in stride(from: 12, through: 0, by: -4) {
            text.append(digits[(value >> shift) & 0xF])
        }
        return text
    }
}
