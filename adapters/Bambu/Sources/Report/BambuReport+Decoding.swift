public import LiveBridgeCore

extension BambuReport {
    /// Reads one MQTT payload from a printer's report topic.
    ///
    /// Payloads are JSON; invalid UTF-8 (seen in job names) is read as Latin-1 for the bytes that
    /// are not UTF-8 rather than rejecting the report. Only `print.command == "push_status"` is a
    /// status report (a `print` object without `command` counts too); everything else on the topic
    /// is `.other`. Throws only when the payload is not a JSON object at all.
    public static func decode(_ payload: [UInt8]) throws(BambuReportError) -> BambuMessage {
        let bytes = BambuPayloadText.repairingUTF8(payload)
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw BambuReportError(
                code: .notJSON, message: "report is not valid JSON (\(error.description), \(payload.count) bytes)")
        }
        guard case .object(let root) = json else {
            throw BambuReportError(code: .notAnObject, message: "report is JSON but not an object")
        }
        guard let print = root["print"] else {
            let kinds = root.keys.sorted().joined(separator: ", ")
            return .other(kinds.isEmpty ? "empty object" : "message with \(kinds)")
        }
        guard case .object(let members) = print else {
            throw BambuReportError(code: .printNotAnObject, message: "report's \"print\" member is not an object")
        }
        if let command = members["command"], command.stringValue != "push_status" {
            return .other("print.command \(command)")
        }
        return .status(BambuReport(printObject: members))
    }

    /// Decodes the members of a `print` object, dropping fields of unexpected types.
    public init(printObject members: [String: JSONValue]) {
        self.init()
        var reader = FieldReader(members: members)
        messageKind = reader.int("msg")
        sequenceID = reader.text("sequence_id", acceptingNumbers: true)
        gcodeState = reader.text("gcode_state").map(BambuGcodeState.init(wire:))
        percent = reader.int("mc_percent") ?? reader.int("percent")
        remainingMinutes = reader.int("mc_remaining_time") ?? reader.int("remain_time")
        layer = reader.int("layer_num")
        totalLayers = reader.int("total_layer_num")
        subtaskName = reader.text("subtask_name")
        gcodeFile = reader.text("gcode_file")
        preparePercent = reader.int("gcode_file_prepare_percent") ?? reader.int("prepare_per")
        stages = reader.intArray("stg")
        currentStage = reader.int("stg_cur")
        printStage = reader.int("mc_print_stage") ?? reader.int("mc_stage")
        printError = reader.int("print_error")
        failReason = reader.int("fail_reason")
        hms = reader.hms("hms")
        speedLevel = reader.int("spd_lvl")
        speedMagnitude = reader.int("spd_mag")
        nozzleTemperature = reader.temperature("nozzle_temper")
        nozzleTargetTemperature = reader.temperature("nozzle_target_temper")
        bedTemperature = reader.temperature("bed_temper")
        bedTargetTemperature = reader.temperature("bed_target_temper")
        chamberTemperature = reader.temperature("chamber_temper")
        printType = reader.text("print_type")
        taskID = reader.text("task_id", acceptingNumbers: true)
        if nozzleTemperature == nil, let packed = Self.packedExtruderTemperature(members) {
            // H2 models: device.extruder.info[0].temp = target << 16 | current.
            nozzleTemperature = Double(packed & 0xFFFF)
            if nozzleTargetTemperature == nil { nozzleTargetTemperature = Double((packed >> 16) & 0xFFFF) }
        }
        droppedFields = reader.dropped
    }

    private static func packedExtruderTemperature(_ members: [String: JSONValue]) -> Int? {
        guard let info = members["device"]?["extruder"]?["info"]?.arrayValue, let first = info.first else {
            return nil
        }
        return first["temp"]?.intValue
    }
}

/// Reads typed values out of a `print` object, remembering which keys had an unexpected type.
private struct FieldReader {
    let members: [String: JSONValue]
    var dropped: [String] = []

    /// An integer from an integer, an integral float, or a string holding one (`"2"`, `"50348044"`).
    mutating func int(_ key: String) -> Int? {
        guard let value = members[key], !value.isNull else { return nil }
        if let number = Self.integer(value) { return number }
        dropped.append(key)
        return nil
    }

    /// A temperature in °C: a number within what a printer's sensors can read
    /// (`BambuReport.coldestReading`…`hottestReading`); anything past it is a garbled field, dropped.
    mutating func temperature(_ key: String) -> Double? {
        guard let number = double(key) else { return nil }
        if (BambuReport.coldestReading...BambuReport.hottestReading).contains(number) { return number }
        dropped.append(key)
        return nil
    }

    /// A number from a number or a numeric string.
    mutating func double(_ key: String) -> Double? {
        guard let value = members[key], !value.isNull else { return nil }
        if case .bool = value {
            dropped.append(key)
            return nil
        }
        if let number = value.lenientDouble, number.isFinite { return number }
        dropped.append(key)
        return nil
    }

    /// A string; with `acceptingNumbers`, a number is written as its decimal text.
    mutating func text(_ key: String, acceptingNumbers: Bool = false) -> String? {
        guard let value = members[key], !value.isNull else { return nil }
        switch value {
        case .string(let text): return text
        case .int(let number) where acceptingNumbers: return String(number)
        default:
            dropped.append(key)
            return nil
        }
    }

    /// An array of integers; elements that are not integers are skipped.
    mutating func intArray(_ key: String) -> [Int]? {
        guard let value = members[key], !value.isNull else { return nil }
        guard case .array(let elements) = value else {
            dropped.append(key)
            return nil
        }
        return elements.compactMap(Self.integer)
    }

    /// The `hms` list; entries without integer `attr` and `code` are skipped.
    mutating func hms(_ key: String) -> [BambuHMSCode]? {
        guard let value = members[key], !value.isNull else { return nil }
        guard case .array(let elements) = value else {
            dropped.append(key)
            return nil
        }
        return elements.compactMap { element in
            guard let attribute = element["attr"].flatMap(Self.integer),
                let code = element["code"].flatMap(Self.integer)
            else { return nil }
            return BambuHMSCode(attribute: attribute, code: code)
        }
    }

    static func integer(_ value: JSONValue) -> Int? {
        switch value {
        case .int, .double: return value.intValue
        case .string(let text):
            let trimmed = text.trimmingWhitespace()
            if let number = Int(trimmed) { return number }
            if let number = Double(trimmed), number.isFinite, number.rounded() == number, abs(number) < 9e15 {
                return Int(number)
            }
            return nil
        default: return nil
        }
    }
}

/// Text repair for printer payloads.
enum BambuPayloadText {
    /// The bytes with every byte that is not part of a valid UTF-8 sequence re-encoded as the
    /// Latin-1 character of the same value (`0xE9` → `é`); valid UTF-8 is left untouched.
    static func repairingUTF8(_ bytes: [UInt8]) -> [UInt8] {
        if String(validating: bytes, as: UTF8.self) != nil { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                output.append(byte)
                index += 1
                continue
            }
            let length: Int
            switch byte {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: length = 0
            }
            if length > 0, index + length <= bytes.count,
                String(validating: bytes[index..<index + length], as: UTF8.self) != nil
            {
                output.append(contentsOf: bytes[index..<index + length])
                index += length
                continue
            }
            output.append(0xC0 | (byte >> 6))
            output.append(0x80 | (byte & 0x3F))
            index += 1
        }
        return output
    }
}
