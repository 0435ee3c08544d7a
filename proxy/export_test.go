package proxy

// export_test.go exports internals to the proxy's external tests
// (package proxy_test), which run the forwarder with the real features of
// proxy/feature/... and so cannot be in package proxy (the features import
// it).

type (
	Registration       = registration
	RegistrationParams = registrationParams
)

// DataKey marks the proxy's own code actions (codeaction.go).
const DataKey = dataKey

var MustJSON = mustJSON

type (
	TokenParams           = tokenParams
	WorkDoneProgressValue = workDoneProgressValue
)

var CommandOptions = commandOptions

// SetMaxServerQueue sets the bytes that may wait for JDT LS to read them
// (maxServerQueue) and returns a func that restores it.
func SetMaxServerQueue(n int) func() {
	old := maxServerQueue
	maxServerQueue = n
	return func() { maxServerQueue = old }
}

// SetMaxOwnInFlight sets how many of the proxy's own requests may run at
// once (maxOwnInFlight) and returns a func that restores it.
func SetMaxOwnInFlight(n int) func() {
	old := maxOwnInFlight
	maxOwnInFlight = n
	return func() { maxOwnInFlight = old }
}
