/// Keys and ids for the tests, all public and throwaway: never a credential.
public enum ThrowawayKeys {
    /// RFC 6979 Appendix A.2.5's P-256 test key (x = C9AFA9D8…0F6721) as an Apple-style .p8: PKCS#8 with
    /// the curve OID and the public key inside the RFC 5915 ECPrivateKey (150 bytes of DER).
    public static let rfc6979PrivateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgya+p2EW6dRZrXCFX
        Z7HWk05Qw9s26JsSe4piKxIPZyGgCgYIKoZIzj0DAQehRANCAARg/tS6JVqdMclh
        63TGNW1owEm4kjth+mzmaWIuYPKftnkD/hAIuLyZpBrp6VYovGTy8bIMLX6fUXej
        wpTURiKZ
        -----END PRIVATE KEY-----
        """

    /// Its public half (SubjectPublicKeyInfo), for verifiers such as the fake App Store Connect.
    public static let rfc6979PublicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEYP7UuiVanTHJYet0xjVtaMBJuJI7
        Yfps5mliLmDyn7Z5A/4QCLi8maQa6elWKLxk8vGyDC1+n1F3o8KU1EYimQ==
        -----END PUBLIC KEY-----

        """

    /// A P-256 key encrypted (PKCS#8 EncryptedPrivateKeyInfo, PBES2 / AES-256-CBC, password "test"):
    /// what a loader must refuse, saying so.
    public static let encryptedPrivateKeyPEM = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAjumIuA8p9IBQICCAAw
        DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEHhd8rbTaAyG5oKb15tA9BsEgZBD
        rBfrEZQJSpRGdZAY09U+ULeQLf5/w7xBpUd0YAKRen/UukfbSp32bsdjmn05uNsA
        /Ii5QAgPLkyeE+dRJighKKvvsyFt16TdgRaYDHZaYXhv3KErrPq7bPatCHaz0RCe
        00n74v140iYLFSOBM3kNzUSOaH4lwK720dA6QPLq3V/KSV0H5Z9ovKpwb/LQec4=
        -----END ENCRYPTED PRIVATE KEY-----
        """

    /// Apple's example key ID and issuer ID ("Generating Tokens for API Requests").
    public static let exampleKeyID = "2X9R4HXF34"
    public static let exampleIssuerID = "57246542-96fe-1a63-e053-0824d011072a"
}
