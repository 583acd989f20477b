/// A JSON5 syntax error, located by line and column so a user can find it in their editor.
public struct JSON5ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int

    public var description: String { "line \(line), column \(column): \(message)" }
}

/// Parses JSON5 (comments, unquoted keys, single quotes, trailing commas, hex, `+`, `.5`,
/// `Infinity`, `NaN`) into `JSONValue`.
///
/// Foundation's `JSONDecoder.allowsJSON5` accepts the same syntax but reports an error only as
/// "not valid JSON" with no position; a config file deserves "line 12, column 5".
public struct JSON5Parser {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var depth = 0

    /// Parses a whole JSON5 document.
    public static func parse(_ text: String) throws(JSON5ParseError) -> JSONValue {
        var parser = JSON5Parser(scalars: Array(text.unicodeScalars))
        try parser.skipSpaceAndComments()
        guard parser.index < parser.scalars.count else { throw parser.fail("the file is empty") }
        let value = try parser.parseValue()
        try parser.skipSpaceAndComments()
        guard parser.index == parser.scalars.count else { throw parser.fail("unexpected text after the document") }
        return value
    }

    private init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    private func fail(_ message: String, at position: Int? = nil) -> JSON5ParseError {
        let target = min(position ?? index, scalars.count)
        var line = 1
        var column = 1
        for scalar in scalars[..<target] {
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return JSON5ParseError(message: message, line: line, column: column)
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func skipSpaceAndComments() throws(JSON5ParseError) {
        while let scalar = current {
            if scalar.properties.isWhitespace || scalar == "\u{FEFF}" {
                index += 1
            } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "/" {
                while let c = current, c != "\n" { index += 1 }
            } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "*" {
                let start = index
                index += 2
                while true {
                    guard index + 1 < scalars.count else { throw fail("unterminated /* comment", at: start) }
                    if scalars[index] == "*" && scalars[index + 1] == "/" {
                        index += 2
                        break
                    }
                    index += 1
                }
            } else {
                return
            }
        }
    }

    private mutating func parseValue() throws(JSON5ParseError) -> JSONValue {
        guard let scalar = current else { throw fail("unexpected end of file") }
        switch scalar {
        case "{": return try parseObject()
        case "[": return try parseArray()
        case "\"", "'": return .string(try parseString())
        case "-", "+", ".", "0"..."9": return try parseNumber()
        default:
            if scalar.properties.isAlphabetic || scalar == "_" || scalar == "$" {
                let word = parseIdentifier()
                switch word {
                case "true": return .bool(true)
                case "false": return .bool(false)
                case "null": return .null
                case "Infinity": return .double(.infinity)
                case "NaN": return .double(.nan)
                default:
                    throw fail(
                        "unexpected word \"\(word)\"; strings need quotes", at: index - word.unicodeScalars.count)
                }
            }
            throw fail("unexpected character '\(scalar)'")
        }
    }

    private mutating func enter() throws(JSON5ParseError) {
        depth += 1
        if depth > JSONParser.maximumDepth { throw fail("nesting deeper than \(JSONParser.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSON5ParseError) -> JSONValue {
        try enter()
        let start = index
        index += 1
        var members: [String: JSONValue] = [:]
        while true {
            try skipSpaceAndComments()
            guard let scalar = current else { throw fail("unterminated object (opened here)", at: start) }
            if scalar == "}" {
                index += 1
                depth -= 1
                return .object(members)
            }
            let keyStart = index
            let key: String
            if scalar == "\"" || scalar == "'" {
                key = try parseString()
            } else if scalar.properties.isAlphabetic || scalar == "_" || scalar == "$" {
                key = parseIdentifier()
            } else {
                throw fail("expected a member name or '}'")
            }
            if members[key] != nil { throw fail("duplicate key \"\(key)\"", at: keyStart) }
            try skipSpaceAndComments()
            guard current == ":" else { throw fail("expected ':' after \"\(key)\"") }
            index += 1
            try skipSpaceAndComments()
            members[key] = try parseValue()
            try skipSpaceAndComments()
            if current == nil { throw fail("unterminated object (opened here)", at: start) }
            if current == "," {
                index += 1
            } else if current != "}" {
                throw fail("expected ',' or '}' after the value of \"\(key)\"")
            }
        }
    }

    private mutating func parseArray() throws(JSON5ParseError) -> JSONValue {
        try enter()
        let start = index
        index += 1
        var elements: [JSONValue] = []
        while true {
            try skipSpaceAndComments()
            guard let scalar = current else { throw fail("unterminated array (opened here)", at: start) }
            if scalar == "]" {
                index += 1
                depth -= 1
                return .array(elements)
            }
            elements.append(try parseValue())
            try skipSpaceAndComments()
            if current == nil { throw fail("unterminated array (opened here)", at: start) }
            if current == "," {
                index += 1
            } else if current != "]" {
                throw fail("expected ',' or ']' in array")
            }
        }
    }

    private mutating func parseIdentifier() -> String {
        var word = ""
        while let scalar = current,
            scalar.properties.isAlphabetic || scalar == "_" || scalar == "$" || ("0"..."9").contains(scalar)
        {
            word.unicodeScalars.append(scalar)
            index += 1
        }
        return word
    }

    private mutating func parseString() throws(JSON5ParseError) -> String {
        let quote = scalars[index]
        let start = index
        index += 1
        var text = ""
        while true {
            guard let scalar = current else { throw fail("unterminated string", at: start) }
            index += 1
            if scalar == quote { return text }
            if scalar == "\n" { throw fail("line break inside a string (use \\n)", at: index - 1) }
            guard scalar == "\\" else {
                text.unicodeScalars.append(scalar)
                continue
            }
            guard let escape = current else { throw fail("unterminated string", at: start) }
            index += 1
            switch escape {
            case "n": text += "\n"
            case "t": text += "\t"
            case "r": text += "\r"
            case "b": text += "\u{08}"
            case "f": text += "\u{0C}"
            case "v": text += "\u{0B}"
            case "0": text += "\u{00}"
            case "\n": break
            case "x":
                text.unicodeScalars.append(try hexScalar(digits: 2))
            case "u":
                var value = try hexValue(digits: 4)
                if (0xD800...0xDBFF).contains(value), current == "\\", index + 1 < scalars.count,
                    scalars[index + 1] == "u"
                {
                    index += 2
                    let low = try hexValue(digits: 4)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw fail(
                            "a high surrogate \\uD800…\\uDBFF must be followed by a low surrogate \\uDC00…\\uDFFF")
                    }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let unicode = Unicode.Scalar(value) else { throw fail("invalid \\u escape") }
                text.unicodeScalars.append(unicode)
            default:
                text.unicodeScalars.append(escape)
            }
        }
    }

    private mutating func hexValue(digits: Int) throws(JSON5ParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let scalar = current,
                let digit = scalar.properties.numericType != nil || scalar.isASCII
                    ? UInt32(String(scalar), radix: 16) : nil
            else { throw fail("invalid hex escape") }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func hexScalar(digits: Int) throws(JSON5ParseError) -> Unicode.Scalar {
        guard let scalar = Unicode.Scalar(try hexValue(digits: digits)) else { throw fail("invalid hex escape") }
        return scalar
    }

    private mutating func parseNumber() throws(JSON5ParseError) -> JSONValue {
        let start = index
        var sign = 1.0
        if current == "+" || current == "-" {
            if current == "-" { sign = -1 }
            index += 1
        }
        if current == "I" || current == "N" {
            let word = parseIdentifier()
            if word == "Infinity" { return .double(sign * .infinity) }
            if word == "NaN" { return .double(.nan) }
            throw fail("invalid number", at: start)
        }
        if current == "0", index + 1 < scalars.count, scalars[index + 1] == "x" || scalars[index + 1] == "X" {
            index += 2
            var digits = ""
            while let scalar = current, scalar.isASCII, scalar.properties.isASCIIHexDigit {
                digits.unicodeScalars.append(scalar)
                index += 1
            }
            guard let value = Int64(digits, radix: 16) else { throw fail("invalid hexadecimal number", at: start) }
            return .int(sign < 0 ? -value : value)
        }
        var text = ""
        while let scalar = current,
            ("0"..."9").contains(scalar) || scalar == "." || scalar == "e" || scalar == "E"
                || ((scalar == "+" || scalar == "-") && (text.last == "e" || text.last == "E"))
        {
            text.unicodeScalars.append(scalar)
            index += 1
        }
        if text.hasPrefix(".") { text = "0" + text }
        if text.hasSuffix(".") { text += "0" }
        if !text.contains("."), !text.contains("e"), !text.contains("E"), let integer = Int64(text) {
            return .int(sign < 0 ? -integer : integer)
        }
        guard let value = Double(text) else { throw fail("invalid number", at: start) }
        return .number(sign * value)
    }
}
