// Command-line flags and environment variables, exactly as the contract's table has them, parsed the way the Node
// server's config.js parses them. A flag wins over its variable; anything unknown, repeated, malformed or out of
// range is a configError, which server.go turns into one line on stderr and exit status 2.
//
// The standard library's flag package is not used: it takes -flag as well as --flag, prints its own usage on
// errors, and accepts numbers such as 0x10 or +5, none of which the other servers do.

package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// configError is a bad flag or value; its message is the one line printed after "error: ".
type configError struct{ message string }

func (e *configError) Error() string { return e.message }

func configErrorf(format string, args ...any) *configError {
	return &configError{message: fmt.Sprintf(format, args...)}
}

// usage is what --help prints.
var usage = fmt.Sprintf(`usage: users-server-go [--host ADDR] [--port N] [--workers N] [--max-users N] [--log]
  --host ADDR      address to bind (env HOST, default 127.0.0.1)
  --port N         port to bind, 0..65535, 0 for any free port (env PORT, default 3000)
  --workers N      GOMAXPROCS, 1..1024: threads running Go code at once (env WORKERS, default: available cores)
  --max-users N    store capacity, seed included (env MAX_USERS, %d..%d, default 1000000)
  --log            one line per request on stderr, e.g. 2026-11-30T19:00:00.123Z GET /users/500 200 0.123ms
For tests only (env HEADER_TIMEOUT_MS, BODY_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS; default 10000 each):
  --header-timeout-ms N    time for a complete request head, and for an idle keep-alive connection
  --body-timeout-ms N      time for a complete request body after its head
  --shutdown-timeout-ms N  how long SIGTERM/SIGINT waits for requests in progress`, SeedUsers, MaxCapacity)

// config is the parsed command line.
type config struct {
	help            bool
	host            string
	port            int
	workers         int // 0: not given, GOMAXPROCS keeps the runtime's default (all available cores)
	maxUsers        int
	log             bool
	headerTimeout   time.Duration
	bodyTimeout     time.Duration
	shutdownTimeout time.Duration
}

// option is one flag with a value: its environment variable and how its text becomes a value.
type option struct {
	variable string
	parse    func(text, what string, into *config) error
}

func integer(min, max int, set func(*config, int)) func(string, string, *config) error {
	return func(text, what string, into *config) error {
		value, err := parseInteger(text, what, min, max)
		if err == nil {
			set(into, value)
		}
		return err
	}
}

func millis(min int, set func(*config, time.Duration)) func(string, string, *config) error {
	return integer(min, 3_600_000, func(c *config, ms int) { set(c, time.Duration(ms)*time.Millisecond) })
}

// options lists every flag with a value, in the order the contract's table has them; --log has none.
var optionNames = []string{"host", "port", "workers", "max-users", "header-timeout-ms", "body-timeout-ms",
	"shutdown-timeout-ms"}

var optionTable = map[string]option{
	"host":                {"HOST", parseHost},
	"port":                {"PORT", integer(0, 65_535, func(c *config, v int) { c.port = v })},
	"workers":             {"WORKERS", integer(1, 1024, func(c *config, v int) { c.workers = v })},
	"max-users":           {"MAX_USERS", integer(SeedUsers, MaxCapacity, func(c *config, v int) { c.maxUsers = v })},
	"header-timeout-ms":   {"HEADER_TIMEOUT_MS", millis(1, func(c *config, d time.Duration) { c.headerTimeout = d })},
	"body-timeout-ms":     {"BODY_TIMEOUT_MS", millis(1, func(c *config, d time.Duration) { c.bodyTimeout = d })},
	"shutdown-timeout-ms": {"SHUTDOWN_TIMEOUT_MS", millis(0, func(c *config, d time.Duration) { c.shutdownTimeout = d })},
}

// parseConfig reads the arguments after the program name and the environment (getenv is os.Getenv, or a map in
// tests).
func parseConfig(args []string, getenv func(string) string) (config, error) {
	cfg := config{
		host:            "127.0.0.1",
		port:            3000,
		maxUsers:        1_000_000,
		headerTimeout:   HeaderTimeout,
		bodyTimeout:     BodyTimeout,
		shutdownTimeout: ShutdownTimeout,
	}
	flags := map[string]string{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--help" || arg == "-h":
			cfg.help = true
			continue
		case arg == "--log":
			cfg.log = true
			continue
		case !strings.HasPrefix(arg, "--"):
			return cfg, configErrorf("unexpected argument '%s' (try --help)", arg)
		}
		name, value, hasValue := strings.Cut(arg[2:], "=")
		if name == "log" {
			return cfg, configErrorf("--log takes no value")
		}
		if _, known := optionTable[name]; !known {
			return cfg, configErrorf("unknown flag '--%s' (try --help)", name)
		}
		if _, repeated := flags[name]; repeated {
			return cfg, configErrorf("--%s given more than once", name)
		}
		if !hasValue {
			if i+1 >= len(args) {
				return cfg, configErrorf("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		flags[name] = value
	}

	for _, name := range optionNames {
		opt := optionTable[name]
		if value, given := flags[name]; given {
			if err := opt.parse(value, "--"+name, &cfg); err != nil {
				return cfg, err
			}
		} else if value := getenv(opt.variable); value != "" {
			// An empty variable counts as unset, as in the Node server.
			if err := opt.parse(value, opt.variable, &cfg); err != nil {
				return cfg, err
			}
		}
	}
	return cfg, nil
}

// parseInteger reads a plain decimal integer in [min, max]: no sign, no exponent, no hex, no blanks.
func parseInteger(text, what string, min, max int) (int, error) {
	if text == "" || strings.Trim(text, "0123456789") != "" {
		return 0, configErrorf("%s: '%s' is not a number", what, text)
	}
	value, err := strconv.Atoi(text)
	if err != nil || value < min || value > max {
		return 0, configErrorf("%s: %s is out of range (%d..%d)", what, text, min, max)
	}
	return value, nil
}

// parseHost accepts an IP address, v4 or v6, as the Node server does (the Rust server also resolves names).
func parseHost(text, what string, into *config) error {
	if net.ParseIP(text) == nil {
		return configErrorf("%s: '%s' is not an IP address", what, text)
	}
	into.host = text
	return nil
}
