print("custom adapter")
