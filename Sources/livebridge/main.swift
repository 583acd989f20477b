import LiveBridgeApp

await LiveBridgeCommand.main()
