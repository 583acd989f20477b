import LiveBridgeBench

await BenchCommand.main()
