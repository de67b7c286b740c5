/** The SDK's public surface: everything a client application imports comes from here. */
export const SDK_VERSION = '0.1.0';
