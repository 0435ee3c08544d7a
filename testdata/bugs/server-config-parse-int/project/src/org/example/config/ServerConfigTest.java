package org.example.config;

import java.time.Duration;

/** Checks ServerConfig; exits with status 1 when a check fails. */
public class ServerConfigTest {
    private static int failures;

    private static void check(String name, boolean ok) {
        System.out.println((ok ? "ok   " : "FAIL ") + name);
        if (!ok) {
            failures++;
        }
    }

    public static void main(String[] args) throws Exception {
        ServerConfig defaults = ServerConfig.parse("");
        check("default host", defaults.host.equals("0.0.0.0"));
        check("default port", defaults.port == 6667);
        check("default timeout", defaults.idleTimeout.equals(Duration.ofMinutes(5)));

        ServerConfig c = ServerConfig.parse("host = chat.example.org\nport = 7000 \nmax.clients=25\n# comment\nidle.timeout.seconds=60\n");
        check("host", c.host.equals("chat.example.org"));
        check("port", c.port == 7000);
        check("max clients", c.maxClients == 25);
        check("timeout", c.idleTimeout.getSeconds() == 60);

        boolean rejected = false;
        try {
            ServerConfig.parse("port=seventy");
        } catch (IllegalArgumentException e) {
            rejected = e.getMessage().startsWith("port is not a number");
        }
        check("rejects a non-numeric port", rejected);
        if (failures > 0) {
            System.out.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("all checks passed");
    }
}
