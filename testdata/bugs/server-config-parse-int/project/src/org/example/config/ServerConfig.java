package org.example.config;

import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.Properties;

/** Settings of the chat server, read from a .properties text with defaults for missing keys. */
public final class ServerConfig {
    public final String host;
    public final int port;
    public final int maxClients;
    public final Duration idleTimeout;

    private ServerConfig(String host, int port, int maxClients, Duration idleTimeout) {
        this.host = host;
        this.port = port;
        this.maxClients = maxClients;
        this.idleTimeout = idleTimeout;
    }

    public static ServerConfig parse(String text) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(text));
        String host = p.getProperty("host", "0.0.0.0").trim();
        int port = intValue(p, "port", 6667);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        int maxClients = intValue(p, "max.clients", 100);
        Duration idle = Duration.ofSeconds(intValue(p, "idle.timeout.seconds", 300));
        return new ServerConfig(host, port, maxClients, idle);
    }

    private static int intValue(Properties p, String key, int fallback) {
        String value = p.getProperty(key);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInteger(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " is not a number: " + value, e);
        }
    }
}
