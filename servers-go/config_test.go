// Tests of the flags and environment variables: the same rules as servers-node/config.js. Run: go test .

package main

import (
	"errors"
	"testing"
	"time"
)

func env(values map[string]string) func(string) string {
	return func(name string) string { return values[name] }
}

func TestConfigDefaultsFlagsAndEnvironment(t *testing.T) {
	cfg, err := parseConfig(nil, env(nil))
	if err != nil || cfg.host != "127.0.0.1" || cfg.port != 3000 || cfg.workers != 0 || cfg.maxUsers != 1_000_000 ||
		cfg.log || cfg.headerTimeout != 10*time.Second || cfg.shutdownTimeout != 10*time.Second {
		t.Errorf("defaults: %+v, %v", cfg, err)
	}
	cfg, err = parseConfig([]string{"--port", "0", "--workers=4", "--log", "--body-timeout-ms", "250"},
		env(map[string]string{"PORT": "9", "MAX_USERS": "10000", "HOST": ""}))
	if err != nil || cfg.port != 0 || cfg.workers != 4 || !cfg.log || cfg.maxUsers != 10_000 ||
		cfg.host != "127.0.0.1" || cfg.bodyTimeout != 250*time.Millisecond {
		t.Errorf("a flag wins over its variable, an empty variable is unset: %+v, %v", cfg, err)
	}
	cfg, err = parseConfig([]string{"--host", "::1"}, env(nil))
	if err != nil || cfg.host != "::1" {
		t.Errorf("IPv6 host: %+v, %v", cfg, err)
	}
}

func TestConfigRefusesBadInput(t *testing.T) {
	cases := map[string][]string{
		"unknown flag '--nope' (try --help)":                  {"--nope", "1"},
		"unexpected argument 'x' (try --help)":                {"x"},
		"--port given more than once":                         {"--port", "1", "--port=2"},
		"--port needs a value":                                {"--port"},
		"--log takes no value":                                {"--log=1"},
		"--port: '+5' is not a number":                        {"--port", "+5"},
		"--port: '0x10' is not a number":                      {"--port", "0x10"},
		"--port: 65536 is out of range (0..65535)":            {"--port", "65536"},
		"--workers: 0 is out of range (1..1024)":              {"--workers", "0"},
		"--max-users: 9999 is out of range (10000..16777216)": {"--max-users", "9999"},
		"--host: 'localhost' is not an IP address":            {"--host", "localhost"},
	}
	for want, args := range cases {
		_, err := parseConfig(args, env(nil))
		var configErr *configError
		if !errors.As(err, &configErr) || err.Error() != want {
			t.Errorf("%q: got %v, want %q", args, err, want)
		}
	}
	_, err := parseConfig(nil, env(map[string]string{"WORKERS": "two"}))
	if err == nil || err.Error() != "WORKERS: 'two' is not a number" {
		t.Errorf("a bad variable names the variable: %v", err)
	}
}
