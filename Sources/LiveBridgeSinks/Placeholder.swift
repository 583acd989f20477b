// LiveBridgeSinks
