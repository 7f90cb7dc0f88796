// Turning request input into a new user, or into the exact error the contract names: POST /users rules 3 to 6, in
// the contract's order (parse, don't validate). Rule 1 is isJsonMediaType, rule 2 is Body's, rule 7 the store's.
// The Go server's validation.go does the same job.
package dev.fairpair.users;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** POST /users rules 1 and 3 to 6. */
public final class Validation {
    private Validation() {
    }

    public static final int MAX_NAME_CODE_POINTS = 200;
    public static final int MAX_EMAIL_CODE_POINTS = 254;

    /** A user that passed validation and has no id yet. */
    public record NewUser(String name, String email) {
    }

    /** Applies rules 3 to 6 in order to a POST /users body; throws the first broken rule's error. */
    public static NewUser parseNewUser(byte[] body) {
        // Rule 3: valid UTF-8 (Java's decoder refuses overlong forms and encoded surrogates, like a fatal decoder)
        // holding one JSON value that JSON.parse accepts, and that value an object.
        if (!isUtf8(body)) {
            throw ApiError.INVALID_JSON.exception();
        }
        Json.Fields found = Json.scanObject(body);
        if (found == null) {
            throw ApiError.INVALID_JSON.exception();
        }
        // Rule 4, for both fields before rule 5: a final name or email that is a string must be well-formed
        // Unicode, so a name of "" with an email escaping U+DFFF alone is invalid json, not name required.
        String name = decodeMember(body, found.name());
        String email = decodeMember(body, found.email());
        // Rule 5.
        if (name == null || name.isEmpty()) {
            throw ApiError.NAME_REQUIRED.exception();
        }
        if (name.codePointCount(0, name.length()) > MAX_NAME_CODE_POINTS) {
            throw ApiError.NAME_TOO_LONG.exception();
        }
        // Rule 6.
        if (email == null || email.codePointCount(0, email.length()) > MAX_EMAIL_CODE_POINTS || !email.contains("@")) {
            throw ApiError.INVALID_EMAIL.exception();
        }
        return new NewUser(name, email);
    }

    /** A member's string, null when it is absent or not a string; a string that is not well-formed is rule 4. */
    private static String decodeMember(byte[] body, Json.Member member) {
        if (member.kind() != Json.Member.Kind.STRING) {
            return null;
        }
        String text = Json.decodeString(body, member.start(), member.end());
        if (text == null) {
            throw ApiError.INVALID_JSON.exception();
        }
        return text;
    }

    static boolean isUtf8(byte[] body) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body));
            return true;
        } catch (CharacterCodingException malformed) {
            return false;
        }
    }

    /**
     * Rule 1: whether a raw Content-Type value names application/json. Only the media type counts (the part before
     * ';'), with spaces and tabs around it ignored, compared with ASCII letters folded. The raw header is read, not
     * Spring's MediaType, which refuses parameters the contract does not look at (a missing value, a stray quote)
     * and would answer those requests itself.
     */
    public static boolean isJsonMediaType(String value) {
        if (value == null) {
            return false;
        }
        int semicolon = value.indexOf(';');
        if (semicolon != -1) {
            value = value.substring(0, semicolon);
        }
        int start = 0;
        int end = value.length();
        while (start < end && (value.charAt(start) == ' ' || value.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (value.charAt(end - 1) == ' ' || value.charAt(end - 1) == '\t')) {
            end--;
        }
        String type = value.substring(start, end);
        // String.equalsIgnoreCase folds non-ASCII letters too (the Kelvin sign K would match a "k"), which HTTP does not.
        if (type.length() != "application/json".length()) {
            return false;
        }
        for (int i = 0; i < type.length(); i++) {
            char c = type.charAt(i);
            char lower = c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
            if (lower != "application/json".charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
