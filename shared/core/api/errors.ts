// Typed errors of the API layer. Their messages are shown to users by the API server, so they
// name the field and say what to do.

/** An object cannot be converted between versions; the conversion fails with this message. */
export class ConversionError extends Error {
  override readonly name = 'ConversionError';
}

/** A review or object is not what the webhook protocol requires (a 400 to the caller). */
export class MalformedReviewError extends Error {
  override readonly name = 'MalformedReviewError';
}
