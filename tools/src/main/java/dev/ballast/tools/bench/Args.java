package dev.ballast.tools.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Command-line flags: {@code --name value}, repeatable, or boolean {@code --name}. Errors name the flag. */
final class Args {
    private final Map<String, List<String>> values = new LinkedHashMap<>();

    Args(String[] argv, Set<String> withValue, Set<String> booleans) {
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + a + "' (flags start with --)");
            }
            String name = a.substring(2);
            String inline = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                inline = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (booleans.contains(name)) {
                if (inline != null) {
                    throw new IllegalArgumentException("--" + name + " takes no value");
                }
                values.computeIfAbsent(name, k -> new ArrayList<>()).add("true");
            } else if (withValue.contains(name)) {
                String v = inline;
                if (v == null) {
                    if (i + 1 >= argv.length) {
                        throw new IllegalArgumentException("--" + name + " needs a value");
                    }
                    v = argv[++i];
                }
                values.computeIfAbsent(name, k -> new ArrayList<>()).add(v);
            } else {
                throw new IllegalArgumentException("unknown flag --" + name);
            }
        }
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    List<String> all(String name) {
        List<String> out = new ArrayList<>();
        for (String v : values.getOrDefault(name, List.of())) {
            for (String part : v.split(";")) {
                if (!part.isBlank()) {
                    out.add(part.trim());
                }
            }
        }
        return out;
    }

    String one(String name, String dflt) {
        List<String> v = values.get(name);
        if (v == null) {
            return dflt;
        }
        if (v.size() > 1) {
            throw new IllegalArgumentException("--" + name + " given more than once");
        }
        return v.get(0);
    }

    int integer(String name, int dflt, int min) {
        long x = longValue(name, dflt, min);
        if (x > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--" + name + " must be an integer <= " + Integer.MAX_VALUE + ", got " + x);
        }
        return (int) x;
    }

    long longValue(String name, long dflt, long min) {
        String v = one(name, null);
        if (v == null) {
            return dflt;
        }
        try {
            long x = Long.parseLong(v);
            if (x < min) {
                throw new NumberFormatException();
            }
            return x;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be an integer >= " + min + ", got '" + v + "'");
        }
    }

    double number(String name, double dflt) {
        String v = one(name, null);
        if (v == null) {
            return dflt;
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a number, got '" + v + "'");
        }
    }
}
