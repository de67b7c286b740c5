/** Longest members of a sign-in request: Initialize, RegisterPhone, PhoneLogin and VerifyMfa share them. */
export const SIGN_IN_LIMITS = {
  message: 1024,
  signature: 200,
  username: 64,
  deviceName: 64,
} as const;
