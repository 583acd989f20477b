// The foundation below the engine (JSON, the config reader, logging and redaction, the state
// store, time) is part of what every module importing the core sees.
@_exported public import LiveBridgeFoundation
