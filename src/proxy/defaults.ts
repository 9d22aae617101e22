// The proxy's default wait, apart from the proxy: the CLI's help prints it
// without loading the proxy, whose request lines load the SDK's schemas.

/** How long an exchange may wait for the server's answer before it is finished alone (`timeout`). */
export const DEFAULT_EXCHANGE_TIMEOUT_MS = 60_000;
