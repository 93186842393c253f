int AFNetworkingStandIn = 4;
