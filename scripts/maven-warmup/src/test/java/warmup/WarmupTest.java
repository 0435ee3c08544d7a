package warmup;

import static org.junit.Assert.assertEquals;

import com.google.common.collect.ImmutableList;
import org.apache.commons.lang3.StringUtils;
import org.junit.Test;

/** Touches every library the fixtures use, so that resolving it is checked. */
public class WarmupTest {
    @Test
    public void librariesLoad() {
        assertEquals("ab", StringUtils.join(ImmutableList.of("a", "b"), ""));
    }
}
