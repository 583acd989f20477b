import Foundation
import LiveBridgeCore
import Testing

@Suite("File state store")
struct FileStateStoreTests {
    /// A fresh directory under /tmp, removed by the caller.
    func temporaryDirectory() throws -> String {
        var template = Array("/tmp/livebridge-store-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        let path = try #require(made.map { String(cString: $0) })
        return path
    }

    @Test("a write creates missing folders, is private to the user and leaves no temporary file")
    func writeCreatesFolders() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = FileStateStore(directory: root + "/data/nested")
        try store.write("sinks/phone.json", Array("{}".utf8))
        #expect(try store.read("sinks/phone.json") == Array("{}".utf8))
        var status = stat()
        #expect(stat(root + "/data/nested/sinks/phone.json", &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/data/nested/sinks") == ["phone.json"])
        #expect(try store.read("missing.json") == nil)
        try store.remove("missing.json")
        try store.remove("sinks/phone.json")
        #expect(try store.read("sinks/phone.json") == nil)
    }

    @Test("a file where a folder should be is a clear error naming the folder")
    func fileInTheWay() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(FileManager.default.createFile(atPath: root + "/blocker", contents: Data()))
        let store = FileStateStore(directory: root + "/blocker")
        do {
            try store.write("trackers.json", Array("{}".utf8))
            Issue.record("expected the write to fail")
        } catch {
            #expect(error.message.hasPrefix("cannot create \(root)/blocker: "), "\(error.message)")
        }
    }
}
