/// One health-management alert from a report's `hms` list: `{"attr": Int, "code": Int}`.
///
/// Bambu writes these as `AAAA_BBBB_CCCC_DDDD` (`attr` high and low 16 bits, then `code`'s), which
/// is what the printer's screen, the app and Bambu's wiki show, so that is the text users search.
public struct BambuHMSCode: Sendable, Hashable, CustomStringConvertible {
    /// `attr`: module (bits 24–31) and the part of the module.
    public var attribute: Int
    /// `code`: severity (bits 16–31) and the alert number.
    public var code: Int

    /// An alert with its two raw numbers.
    public init(attribute: Int, code: Int) {
        self.attribute = attribute
        self.code = code
    }

    /// `0C00_0300_0003_0007`.
    public var text: String {
        [attribute >> 16, attribute & 0xFFFF, code >> 16, code & 0xFFFF]
            .map { BambuErrorCatalog.hex4($0 & 0xFFFF) }
            .joined(separator: "_")
    }

    /// 1 fatal, 2 serious, 3 common, 4 informational.
    public var severity: Int { (code >> 16) & 0xFFFF }

    /// The module number (`0x03` motion controller, `0x05` mainboard, `0x07` AMS, `0x08` toolhead,
    /// `0x0C` camera/xcam).
    public var module: Int { (attribute >> 24) & 0xFF }

    /// The module's name for messages (`AMS`), or `module 0x12`.
    public var moduleName: String {
        switch module {
        case 0x03: "motion controller"
        case 0x05: "mainboard"
        case 0x07: "AMS"
        case 0x08: "toolhead"
        case 0x0C: "camera"
        case 0x12: "AMS lite"
        default: "module 0x" + BambuErrorCatalog.hex4(module).dropFirst(2)
        }
    }

    /// `HMS 0C00_0300_0003_0007 (camera)`.
    public var description: String { "HMS \(text) (\(moduleName))" }
}
