import LiveBridgeCore
import LiveBridgeKit
import LiveBridgeSABnzbd
import Testing

/// Lenient decoding of real (and slightly wrong) queue and history answers.
@Suite("Queue and history decoding")
struct WireDecodingTests {
    @Test("queue numbers sent as strings decode; units are MiB and KiB/s")
    func queueStrings() throws {
        let queue = try SABnzbdQueue(answer: Fixtures.json("sab5-samples/v45_queue_downloading_with_propagating.json"))
        #expect(queue.status == "Downloading" && !queue.paused)
        #expect(abs(queue.bytesPerSecond - 3326.97 * 1024) < 1)
        #expect(abs(queue.totalBytes - 25.11 * 1_048_576) < 1)
        #expect(queue.timeLeftSeconds == 5)
        #expect(queue.slots.map(\.status) == ["Propagating", "Downloading"])
        #expect(queue.slots[0].labels == ["PROPAGATING 2 min"])
        #expect(abs(queue.slots[1].doneBytes - (20.34 - 14.31) * 1_048_576) < 1)
    }

    @Test("an empty 4.5 queue and history, with their \"0 \" sizes")
    func empty() throws {
        let queue = try SABnzbdQueue(answer: Fixtures.json("sab5-samples/v45_queue.json"))
        #expect(queue.slots.isEmpty && queue.totalSlots == 0 && queue.status == "Idle")
        let history = try #require(try SABnzbdHistory.decode(answer: Fixtures.json("sab5-samples/v45_history.json")))
        #expect(history.slots.isEmpty && history.postProcessingSlots == 0)
    }

    @Test("every 5.0 lifecycle sample decodes")
    func lifecycleSamples() throws {
        let samples = try #require(Fixtures.json("sab5-samples/lifecycle_samples.json").objectValue)
        #expect(samples.count >= 10)
        for (name, sample) in samples {
            if name.hasPrefix("queue") {
                #expect(throws: Never.self) { try SABnzbdQueue(answer: sample) }
            } else {
                let history = try SABnzbdHistory.decode(answer: sample)
                #expect(history != nil, "\(name)")
            }
        }
        let sample = try #require(samples["history_verifying"])
        let verifying = try #require(try SABnzbdHistory.decode(answer: sample))
        #expect(verifying.slots.contains { $0.loaded && $0.status == "Verifying" })
    }

    @Test("numbers as numbers, flags as strings, missing members and slots without an id are tolerated")
    func lenient() throws {
        let answer = try JSONParser.parse(
            #"{"queue": {"status": "Downloading", "paused": "false", "kbpersec": 512, "mb": "10", "mbleft": 4.5, "#
                + #""slots": [{"nzo_id": "a", "filename": "A", "mb": 10, "mbleft": "4.5", "labels": "DUPLICATE"}, "#
                + #"{"filename": "no id"}, 42]}}"#)
        let queue = try SABnzbdQueue(answer: answer)
        #expect(!queue.paused && queue.bytesPerSecond == 512 * 1024 && queue.slots.count == 1)
        #expect(queue.slots[0].labels == ["DUPLICATE"] && queue.slots[0].status == "Downloading")
        #expect(queue.totalSlots == 1 && queue.timeLeftSeconds == nil)
        let inner = try SABnzbdQueue(answer: JSONParser.parse(#"{"status": "Idle", "slots": []}"#))
        #expect(inner.status == "Idle")
        let history = try #require(
            try SABnzbdHistory.decode(
                answer: JSONParser.parse(
                    #"{"history": {"slots": [{"nzo_id": "h", "status": "Completed", "bytes": "100", "#
                        + #""download_time": "4", "loaded": 0}]}}"#)))
        #expect(history.slots[0].bytes == 100 && history.slots[0].downloadTime == 4 && !history.slots[0].loaded)
    }

    @Test("history false means unchanged")
    func historyFalse() throws {
        #expect(try SABnzbdHistory.decode(answer: JSONParser.parse(#"{"history": false}"#)) == nil)
    }

    @Test(
        "wrong shapes are typed errors naming what was expected",
        arguments: [
            (#"[]"#, "expected a JSON object"),
            (#"{"version": "4.5.0"}"#, "no \"queue\" member"),
            (#"{"queue": "x"}"#, "\"queue\" is a string"),
            (#"{"queue": {"status": "Idle", "slots": 5}}"#, "\"queue.slots\" is a number"),
            (#"{"status": false, "error": "not implemented"}"#, "SABnzbd answered with an error: \"not implemented\""),
        ])
    func shapes(text: String, expected: String) throws {
        #expect {
            try SABnzbdQueue(answer: JSONParser.parse(text))
        } throws: { error in
            (error as? SABnzbdAnswerError)?.message.contains(expected) == true
        }
    }

    @Test("replay records accept both wrapped and inner answers, and report bad lines by number")
    func replayRecords() throws {
        let lines = [
            #"{"t": 0, "queue": {"queue": {"status": "Idle", "slots": []}}, "history": {"history": false}}"#,
            #"{"t": 1, "queue": {"status": "Idle", "slots": []}}"#,
        ]
        let observations = try SABnzbdReplay.observations(fromJSONLines: lines)
        #expect(observations.count == 2 && observations[0].history == nil)
        #expect(SABnzbdReplay.detects(try JSONParser.parse(lines[0])))
        #expect(!SABnzbdReplay.detects(try JSONParser.parse(#"{"t": 1, "slug": "x"}"#)))
        #expect(throws: ReplayError(line: 2, message: "expected an object with a numeric \"t\"")) {
            try SABnzbdReplay.observations(fromJSONLines: [lines[0], #"{"queue": {}}"#])
        }
        #expect(throws: ReplayError(line: 2, message: "\"t\": 1e+300 is not a time (seconds, at most 253402300799)")) {
            try SABnzbdReplay.observations(fromJSONLines: [lines[0], #"{"t": 1e300, "queue": {}}"#])
        }
        #expect(
            throws: ReplayError(
                line: 2,
                message: "\"t\": 1795999136.0 is 20787 days from the first record's (0.0); a recording spans at most "
                    + "31 days (relative and Unix times mixed?)")
        ) {
            try SABnzbdReplay.observations(fromJSONLines: [lines[0], #"{"t": 1795999136, "queue": {}}"#])
        }
    }
}
