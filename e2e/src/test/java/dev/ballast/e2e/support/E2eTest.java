package dev.ballast.e2e.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks an end-to-end test class: it gets the shared local installation and diagnostics on failure.
 * Each class works in its own namespace, named after the class in kebab case.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith({LocalBallast.class, Diagnostics.class})
public @interface E2eTest {}
