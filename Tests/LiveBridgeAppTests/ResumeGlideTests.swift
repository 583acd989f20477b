import LiveBridgeCore
import Testing

@testable import LiveBridgeApp
@testable import LiveBridgeBench

/// Prints paused and resumed, through the MQTT source's presets (the corpus's `octoprint` and
/// `moonraker` families): a whole percent is a fraction of ε, so the pause is cut out of the pace
/// as the job resumes and the resume push already glides (`EconomySettings.resumeGlideStepShare`).
@Suite("A resume glides")
struct ResumeGlideTests {
    @Test("a fine-stepped print's resume push glides: fewer pushes than standing until the next percent, no more error")
    func resumeGlides() {
        var standing = EconomySettings()
        standing.resumeGlideStepShare = 0
        for family in ["octoprint", "moonraker"] {
            let glides = CorpusFamilyRun.run(family, EconomySettings())
            let stands = CorpusFamilyRun.run(family, standing)
            #expect(glides.pushes < stands.pushes, "\(family): \(glides.pushes) pushes, \(stands.pushes) standing")
            #expect(glides.overEpsilon <= stands.overEpsilon, "\(family)")
            #expect(glides.reversals <= stands.reversals, "\(family)")
        }
    }

    @Test("a download's coarse count resumes standing still: a glide would run ε ahead of it before it moves")
    func coarseStands() throws {
        // The real recording of one SABnzbd job paused and resumed: articles of several percent.
        let trajectory = try #require(BenchTrajectories.standard.first { $0.name == "sabnzbd-i-pause-job" })
        let updates = try trajectory.load(directory: BenchSmokeTests.recordings).updates
        var everyone = EconomySettings()
        everyone.resumeGlideStepShare = 1000
        let gated = EconomySimulation(model: .interpolating, settings: EconomySettings()).run(updates).totalPushes
        let gliding = EconomySimulation(model: .interpolating, settings: everyone).run(updates).totalPushes
        #expect(gated < gliding, "\(gated) pushes, \(gliding) when every resume glides")
    }
}
