/// Turns frames into wire bytes: masked for a client, unmasked for a server.
///
/// Pure and allocation-light: the header and the (masked) payload are written into one array
/// sized up front. Lengths use the shortest encoding (7, 16 or 64 bits) as RFC 6455 requires.
public enum WebSocketFrameEncoder {
    /// The number of header bytes for a payload of `payloadCount` bytes.
    public static func headerCount(payloadCount: Int, masked: Bool) -> Int {
        let lengthBytes = payloadCount <= 125 ? 0 : (payloadCount <= 0xFFFF ? 2 : 8)
        return 2 + lengthBytes + (masked ? 4 : 0)
    }

    /// Encodes `frame`, masking it with `maskingKey` when one is given.
    public static func encode(_ frame: WebSocketFrame, maskingKey: WebSocketMaskingKey?) -> [UInt8] {
        var output: [UInt8] = []
        append(frame, maskingKey: maskingKey, to: &output)
        return output
    }

    /// Appends the encoding of `frame` to `output`.
    public static func append(_ frame: WebSocketFrame, maskingKey: WebSocketMaskingKey?, to output: inout [UInt8]) {
        let count = frame.payload.count
        output.reserveCapacity(output.count + headerCount(payloadCount: count, masked: maskingKey != nil) + count)
        output.append((frame.fin ? 0x80 : 0) | frame.opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if count <= 125 {
            output.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            output.append(maskBit | 126)
            output.append(UInt8(count >> 8))
            output.append(UInt8(count & 0xFF))
        } else {
            output.append(maskBit | 127)
            let length = UInt64(count)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
            }
        }
        guard let maskingKey else {
            output.append(contentsOf: frame.payload)
            return
        }
        output.append(maskingKey.bytes.0)
        output.append(maskingKey.bytes.1)
        output.append(maskingKey.bytes.2)
        output.append(maskingKey.bytes.3)
        let payloadStart = output.count
        output.append(contentsOf: frame.payload)
        output.withUnsafeMutableBytes { buffer in
            maskingKey.apply(to: UnsafeMutableRawBufferPointer(rebasing: buffer[payloadStart...]))
        }
    }

    /// Encodes a client frame, masked with a fresh key from `generator`.
    public static func encodeClientFrame<G: RandomNumberGenerator>(
        _ frame: WebSocketFrame, using generator: inout G
    ) -> [UInt8] {
        encode(frame, maskingKey: .random(using: &generator))
    }

    /// Encodes a client frame, masked with a fresh key from the system random source.
    public static func encodeClientFrame(_ frame: WebSocketFrame) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return encodeClientFrame(frame, using: &generator)
    }

    /// Encodes a server frame (never masked).
    public static func encodeServerFrame(_ frame: WebSocketFrame) -> [UInt8] {
        encode(frame, maskingKey: nil)
    }
}
