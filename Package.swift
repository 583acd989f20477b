// swift-tools-version: 6.0
import PackageDescription

// How the release build of `livebridge` (what `make release`, `make deb` and the bench measure) is
// linked, for a small resident set (docs/performance.md, "Memory and CPU"):
// - lld with packed relative relocations (DT_RELR, glibc 2.36+): the start-up no longer reads a
//   megabyte of R_X86_64_RELATIVE entries, the binary stays position-independent;
// - no --export-dynamic: the dynamic symbol table holds what the libraries need, not every
//   LiveBridge symbol; `_gnutls_global_init_skip` (Sources/livebridge/main.swift) is exported so
//   that GnuTLS, which libcurl4 loads for librtmp and LiveBridge never calls, skips its start-up;
// - libstdc++ (which only the Swift runtime uses) linked from its static archive:
//   scripts/link/libstdc++.so is a linker script that the -L makes `-lstdc++` find first.
let daemonReleaseLinking: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-use-ld=lld",
            "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
            "-Xlinker", "--no-export-dynamic",
            "-Xlinker", "--export-dynamic-symbol=_gnutls_global_init_skip",
            "-L", "\(Context.packageDirectory)/scripts/link",
        ],
        .when(platforms: [.linux], configuration: .release)
    )
]

let package = Package(
    name: "LiveBridge",
    products: [
        .executable(name: "livebridge", targets: ["livebridge"]),
        .executable(name: "livebridge-bench", targets: ["livebridge-bench"]),
        .library(name: "LiveBridgeCore", targets: ["LiveBridgeCore"]),
        .library(name: "LiveBridgeApp", targets: ["LiveBridgeApp"]),
    ],
    targets: [
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .target(name: "CLiveBridgeShims", dependencies: ["CCurl", "COpenSSL", "CMosquitto"]),
        .target(name: "LiveBridgeCore"),
        .target(
            name: "LiveBridgeNet",
            dependencies: ["LiveBridgeCore", "CCurl", "CMosquitto", "COpenSSL", "CLiveBridgeShims"]
        ),
        .target(name: "LiveBridgeSinks", dependencies: ["LiveBridgeCore", "LiveBridgeNet"]),
        .target(
            name: "LiveBridgeSABnzbd",
            dependencies: ["LiveBridgeCore", "LiveBridgeNet"],
            path: "adapters/SABnzbd/Sources"
        ),
        .target(
            name: "LiveBridgeBambu",
            dependencies: ["LiveBridgeCore", "LiveBridgeNet"],
            path: "adapters/BambuLab/Sources"
        ),
        .target(
            name: "LiveBridgeHomeAssistant",
            dependencies: ["LiveBridgeCore", "LiveBridgeNet"],
            path: "adapters/HomeAssistant/Sources"
        ),
        .target(
            name: "LiveBridgeApp",
            dependencies: [
                "LiveBridgeCore", "LiveBridgeNet", "LiveBridgeSinks",
                "LiveBridgeSABnzbd", "LiveBridgeBambu", "LiveBridgeHomeAssistant",
            ]
        ),
        .executableTarget(name: "livebridge", dependencies: ["LiveBridgeApp"], linkerSettings: daemonReleaseLinking),
        // The bench is a program of its own: it may use Foundation (Process, …), `livebridge` does not.
        .target(
            name: "LiveBridgeBench",
            dependencies: [
                "LiveBridgeApp", "LiveBridgeCore", "LiveBridgeNet", "LiveBridgeSinks",
                "LiveBridgeSABnzbd", "LiveBridgeBambu", "LiveBridgeHomeAssistant", "LiveBridgeTestSupport",
            ]
        ),
        .executableTarget(name: "livebridge-bench", dependencies: ["LiveBridgeBench"]),
        .executableTarget(
            name: "custom-adapter",
            dependencies: ["LiveBridgeCore", "LiveBridgeApp"],
            path: "examples/custom-adapter"
        ),
        .target(
            name: "LiveBridgeTestSupport",
            dependencies: ["LiveBridgeCore", "LiveBridgeNet"]
        ),
        .testTarget(name: "LiveBridgeCoreTests", dependencies: ["LiveBridgeCore"]),
        .testTarget(
            name: "LiveBridgeNetTests",
            dependencies: ["LiveBridgeCore", "LiveBridgeNet", "LiveBridgeTestSupport"]
        ),
        .testTarget(
            name: "LiveBridgeSinksTests",
            dependencies: ["LiveBridgeCore", "LiveBridgeNet", "LiveBridgeSinks", "LiveBridgeTestSupport"]
        ),
        .testTarget(
            name: "LiveBridgeSABnzbdTests",
            dependencies: [
                "LiveBridgeCore", "LiveBridgeNet", "LiveBridgeSABnzbd", "LiveBridgeSinks", "LiveBridgeTestSupport",
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "LiveBridgeBambuTests",
            dependencies: [
                "LiveBridgeCore", "LiveBridgeNet", "LiveBridgeBambu", "LiveBridgeSinks", "LiveBridgeTestSupport",
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "LiveBridgeHomeAssistantTests",
            dependencies: [
                "LiveBridgeCore", "LiveBridgeNet", "LiveBridgeHomeAssistant", "LiveBridgeSinks",
                "LiveBridgeTestSupport",
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "LiveBridgeReliabilityTests",
            dependencies: [
                "LiveBridgeApp", "LiveBridgeCore", "LiveBridgeNet", "LiveBridgeSinks", "LiveBridgeSABnzbd",
                "LiveBridgeBambu", "LiveBridgeHomeAssistant", "LiveBridgeTestSupport",
            ]
        ),
        .testTarget(
            name: "LiveBridgeAppTests",
            dependencies: [
                "LiveBridgeApp", "LiveBridgeBench", "LiveBridgeCore", "LiveBridgeNet", "LiveBridgeSinks",
                "LiveBridgeTestSupport",
            ]
        ),
    ]
)

for target in package.targets where target.type != .system && target.name != "CLiveBridgeShims" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
            // Smaller code for the release build: LiveBridge's own pages are most of what it keeps
            // resident, and no path in it is CPU-bound (docs/performance.md, "Memory and CPU").
            .unsafeFlags(["-Osize"], .when(configuration: .release)),
        ]
}
