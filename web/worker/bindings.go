package main

// Binding and variable names, as declared in wrangler.toml. They build on every
// platform so the integration test can set them.
const (
	kvBinding     = "SHARES"
	assetsBinding = "ASSETS"
	publicURLVar  = "PUBLIC_URL" // optional: the base of share links (web.WithPublicURL)
)
