module schedplay

go 1.26.0

require (
	github.com/andybalholm/brotli v1.3.0
	github.com/chromedp/cdproto v0.160.1
	github.com/chromedp/chromedp v0.23.1
	github.com/go-json-experiment/json v1.27.2
	github.com/hajimehoshi/ebiten/v2 v2.8.8
	github.com/syumai/workers v0.33.0
	github.com/yuin/goldmark v1.8.7
	go.etcd.io/bbolt v1.4.3
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5
	golang.org/x/image v0.48.0
	golang.org/x/net v0.63.0
	golang.org/x/sync v0.25.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/ebitengine/gomobile v0.0.0-20240911145611-4856209ac325 // indirect
	github.com/ebitengine/hideconsole v1.0.0 // indirect
	github.com/ebitengine/purego v0.8.0 // indirect
	github.com/jezek/xgb v1.1.1 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
