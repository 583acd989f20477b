// LiveBridgeNet
