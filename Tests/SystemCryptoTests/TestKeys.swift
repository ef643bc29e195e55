import TestSupport

/// Keys for the tests, all public and throwaway: never a credential.
enum TestKeys {
    /// RFC 6979 Appendix A.2.5's P-256 test key as an Apple-style .p8 (TestSupport).
    static let rfc6979 = ThrowawayKeys.rfc6979PrivateKeyPEM

    /// A P-256 key as `openssl genpkey` writes it (138 bytes: no curve OID inside ECPrivateKey).
    static let opensslP256 = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg68Oj/bNkmFuSw4CR
        yIPw6bB1pMOTBkxHWbe+7n4myRahRANCAATLK44eqtGbD5Fz8NJ+HxmO/6FyuOdS
        7FoS6/qNeKzwR9KdZGG5pgYsrYmNeuvJKwh/B0chLjUifCzODth93vQy
        -----END PRIVATE KEY-----
        """

    /// The same key as an RFC 5915 "EC PRIVATE KEY" (SEC 1), not PKCS#8.
    static let sec1 = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIOvDo/2zZJhbksOAkciD8OmwdaTDkwZMR1m3vu5+JskWoAoGCCqGSM49
        AwEHoUQDQgAEyyuOHqrRmw+Rc/DSfh8Zjv+hcrjnUuxaEuv6jXis8EfSnWRhuaYG
        LK2JjXrrySsIfwdHIS41Inwszg7Yfd70Mg==
        -----END EC PRIVATE KEY-----
        """

    /// A P-256 key encrypted with a password (TestSupport).
    static let encrypted = ThrowawayKeys.encryptedPrivateKeyPEM

    /// RSA 1024 in PKCS#8.
    static let rsa = """
        -----BEGIN PRIVATE KEY-----
        MIICdQIBADANBgkqhkiG9w0BAQEFAASCAl8wggJbAgEAAoGBAKVhHL3niX7vHb/1
        2Eiiyp1qniYimG+iBLxVDqZDyUcIj7eZjVPx6xVXeF4cDhHe9ozth+8n9ZjXpdcK
        Ch/6vOiWMMD2TVaqGPwguKl0b51clRr3YR2KFhdsfuiEDMRx5XbcVGF/NZ49T91u
        L6F8sxXMZJxkFqeJ1T1uKpSf5Ok3AgMBAAECgYBqiPak90TBunPltw+PKx9u7MHY
        Oy0LrMl0MS7wuHYvBjrewVIjo5IW+3QU2+nMZV9aRaHt1EYIIdM5hcQj+bg66tsF
        LhXummkAHGpgYV+Uv153SAgQaDvXncESGml+M/26MG3iODOJt6P12PsmpRiSrv3i
        MyKA+dBVqviU0aAGMQJBANxwTpmsCrWVDyJDIwpn12jqY9JsQ/x0RDX3W7d7vWET
        s4QZdkVLtDJFWXfEdbDyNWw8XMj1R0lQCuq9Dd10x50CQQDADvXLFLK1qSdzxAWP
        ioHcs7v+Cw17RQB5syAErtuLCoG1osygwbMorsYZtCUKFN+BTF6AMNy3BcbJ7HRT
        Db3jAkB87u2tLJNZPGS6X2CBqj6siIMQpCmX7/EkwM9rWycG2NqaGLAuL+ytvR4q
        wd6N7YgXktJnVpQTWdkGFyW/iEsFAkBpx9OZBs1nQMN5/30Qkjj0Vgo04eGLA3Y/
        kWkRKz3AVwkaAZCy+fyza4+wmIfOBbEUhfuGn2Lxaz0R+ioXlHoBAkAbAyNYGrUV
        sH48byc5SUOBI7meiKCPrIxAAtdyLVJGYV17ocvSXV7Pc6ePPip8YuZl8Q7Bs3Yq
        ee2vuhOSJ4Ax
        -----END PRIVATE KEY-----
        """

    /// Ed25519 in PKCS#8.
    static let ed25519 = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEIFPlf4qnbSYpnckapa34l3n3PFak1E0Ykx2tdMaO3Pgt
        -----END PRIVATE KEY-----
        """

    /// EC on P-384 (secp384r1) in PKCS#8.
    static let p384 = """
        -----BEGIN PRIVATE KEY-----
        MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDB8OXEWnfzk9p2CkTvK
        lkX3vMFvUICk/2j298mLFgvIT8j4XddWSm8LxDonbX/pV3yhZANiAASHEFZYAXpz
        yebsRBfCZEW9JbpxJ4McJl+GsQFyssw0lt5lx4Dh0lDC5RwmaoNOhLx9EirSjDh5
        UcblUZghUutHJlYOD4j42KnImgsOUwCM0QVsaCkJ0kxnaxdZK0wNaaU=
        -----END PRIVATE KEY-----
        """

    /// The RFC 6979 scalar with the public key of `opensslP256`: well-formed DER, not a key pair.
    static let mismatchedPublicKey = """
        -----BEGIN PRIVATE KEY-----
        MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgya+p2EW6dRZrXCFX
        Z7HWk05Qw9s26JsSe4piKxIPZyGgCgYIKoZIzj0DAQehRANCAATLK44eqtGbD5Fz
        8NJ+HxmO/6FyuOdS7FoS6/qNeKzwR9KdZGG5pgYsrYmNeuvJKwh/B0chLjUifCzO
        Dth93vQy
        -----END PRIVATE KEY-----
        """
}
