import LiveBridgeApp

/// GnuTLS's documented opt-out of its implicit initialisation (`GNUTLS_SKIP_GLOBAL_INIT`), read
/// by its library constructor. libcurl4 loads GnuTLS only through librtmp, and LiveBridge never
/// speaks RTMP, so nothing in the process uses GnuTLS; skipping its start-up (priority strings,
/// PKCS #11, random generator) keeps about 0.7 MiB of its pages unmapped. The release link
/// exports the symbol (Package.swift, daemonReleaseLinking).
@_cdecl("_gnutls_global_init_skip")
public func gnutlsGlobalInitSkip() -> Int32 { 1 }

await LiveBridgeCommand.main()
