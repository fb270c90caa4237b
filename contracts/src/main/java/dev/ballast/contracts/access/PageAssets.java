package dev.ballast.contracts.access;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The static files of a signed-in page (the job page, the index of jobs; docs/dashboard.md), read once from the jar
 * under {@code dashboard/}, with the headers both apps send them with. {@code session.js}, the sign-in script both
 * pages share, comes from this module's jar.
 */
public final class PageAssets {
    /** Scripts, styles and data from this origin only; no inline code, no framing. */
    public static final String CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";
    /** Sent with every asset besides its content type. */
    public static final Map<String, String> HEADERS = Map.of("Content-Security-Policy", CSP,
            "X-Content-Type-Options", "nosniff");

    public record Asset(String contentType, byte[] body) {
    }

    private final Map<String, Asset> assets;

    private PageAssets(Map<String, Asset> assets) {
        this.assets = assets;
    }

    /**
     * The page's own files (and session.js), read through {@code app}'s class loader (which sees the app's jar and this
     * one; under Quarkus this module's own loader may not see the app's files).
     */
    public static PageAssets load(Class<?> app, String... names) {
        return new PageAssets(Arrays.stream(names).collect(
                Collectors.toUnmodifiableMap(n -> n, n -> new Asset(contentType(n), read(app, n)))));
    }

    /** The asset, or null when the page has no file of that name. */
    public Asset get(String name) {
        return assets.get(name);
    }

    private static String contentType(String name) {
        String ext = name.substring(name.lastIndexOf('.') + 1);
        return switch (ext) {
            case "html" -> "text/html; charset=utf-8";
            case "js" -> "text/javascript; charset=utf-8";
            case "css" -> "text/css; charset=utf-8";
            default -> throw new IllegalArgumentException("no content type for dashboard/" + name);
        };
    }

    private static byte[] read(Class<?> app, String name) {
        try (InputStream in = app.getResourceAsStream("/dashboard/" + name)) {
            if (in == null) {
                throw new IllegalStateException(app.getSimpleName() + " finds no dashboard/" + name + " in its jars");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
