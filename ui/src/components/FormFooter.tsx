// The end of a dialog's form: what went wrong, if anything, then Cancel and the submit button.

export function FormFooter({
  error,
  onCancel,
  submit,
  disabled = false,
}: {
  error: string | null;
  onCancel(): void;
  submit: string;
  disabled?: boolean;
}) {
  return (
    <>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <footer>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={disabled}>
          {submit}
        </button>
      </footer>
    </>
  );
}
