import Foundation
import LiveBridgeNet
import Testing

/// Decode throughput of the codec on one core. Opt-in, release build:
///
///     LIVEBRIDGE_BENCHMARK=1 swift test -c release --filter WebSocketCodecBenchmark
@Suite(
    "WebSocket codec benchmark", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["LIVEBRIDGE_BENCHMARK"] == "1"))
struct WebSocketCodecBenchmark {
    /// A Home Assistant-like JSON event padded to exactly `size` bytes.
    static func jsonPayload(index: Int, size: Int) -> [UInt8] {
        var text =
            #"{"id":\#(index % 1000),"type":"event","event":{"c":{"sensor.printer_progress":{"+":{"s":"\#(index % 100)","#
            + #""lc":1795999361.549581,"c":"01M8MYETGDQ07RE689HAS91XFX","a":{"remaining":"0:00:25"}}}}}}"#
        while text.utf8.count < size { text += " " }
        return Array(text.utf8.prefix(size))
    }

    /// Decodes `stream` fed in 64 KiB chunks (like socket reads); returns (events, seconds).
    static func decode(_ stream: [UInt8]) -> (Int, Double) {
        let clock = ContinuousClock()
        var events = 0
        let elapsed = clock.measure {
            var decoder = WebSocketDecoder(role: .client)
            stream.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let end = min(bytes.count, offset + 65_536)
                    decoder.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                    offset = end
                    while let event = try? decoder.next() {
                        if case .message = event { events += 1 }
                    }
                }
            }
        }
        return (events, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    static func run(_ name: String, frames: [WebSocketFrame]) {
        let stream = frames.flatMap { WebSocketFrameEncoder.encodeServerFrame($0) }
        var results: [Double] = []
        for _ in 0..<7 {
            let (events, seconds) = decode(stream)
            #expect(events == frames.count)
            results.append(Double(events) / seconds)
        }
        results.sort()
        let median = results[results.count / 2]
        let megabytes = Double(stream.count) / 1_048_576
        let secondsPerRun = Double(frames.count) / median
        print(
            "[benchmark] \(name): \(frames.count) frames, \(String(format: "%.1f", megabytes)) MiB; median "
                + "\(String(format: "%.2f", median / 1e6)) M frames/s (best \(String(format: "%.2f", results.last! / 1e6)) M), "
                + "\(String(format: "%.0f", megabytes / secondsPerRun)) MiB/s")
    }

    @Test("200-byte JSON text frames")
    func smallTextFrames() {
        Self.run(
            "200 B text",
            frames: (0..<200_000).map { WebSocketFrame(opcode: .text, payload: Self.jsonPayload(index: $0, size: 200)) }
        )
    }

    @Test("Mix: 90 % 200 B, 9 % 2 KiB, 1 % 64 KiB text frames")
    func mixedFrames() {
        var frames: [WebSocketFrame] = []
        for index in 0..<100_000 {
            let size = index % 100 == 0 ? 65_536 : (index % 10 == 0 ? 2_048 : 200)
            frames.append(WebSocketFrame(opcode: .text, payload: Self.jsonPayload(index: index, size: size)))
        }
        Self.run("mixed text", frames: frames)
    }
}
