package agent

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goironic/ironic/internal/shacrypt"
)

// writeRescuePassword is rescue.write_rescue_password: the hash (Ironic
// 21.4 sends it hashed; an unhashed password is hashed with SHA-512
// crypt, as Python's crypt.crypt does by default) written to the
// password file, and, when Config.ShadowFile is set (the ramdisk),
// made the rescue user's password.
func (a *Agent) writeRescuePassword(p map[string]any) error {
	pw := fmt.Sprint(p["rescue_password"])
	if p["rescue_password"] == nil {
		pw = ""
	}
	hash := pw
	if hashed, _ := p["hashed"].(bool); !hashed {
		salt := make([]byte, 16)
		if _, err := rand.Read(salt); err != nil {
			return err
		}
		for i := range salt {
			salt[i] = shacrypt.Alphabet[int(salt[i])%64]
		}
		hash = shacrypt.SHA512(pw, string(salt))
	}
	if err := os.MkdirAll(filepath.Dir(a.cfg.RescuePasswordFile), 0o700); err != nil {
		return rescueWriteError(err)
	}
	if err := os.WriteFile(a.cfg.RescuePasswordFile, []byte(hash), 0o600); err != nil {
		return rescueWriteError(err)
	}
	if a.cfg.ShadowFile != "" {
		if err := setShadowPassword(a.cfg.ShadowFile, "rescue", hash); err != nil {
			return rescueWriteError(err)
		}
	}
	return nil
}

func rescueWriteError(err error) error {
	return errCommandExecution("Rescue Operation failed when writing the hashed rescue password to the password file. Error " + err.Error())
}

// setShadowPassword sets user's hash in a shadow(5) file, adding the
// user when missing.
func setShadowPassword(path, user, hash string) error {
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var lines []string
	found := false
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if l == "" {
			continue
		}
		fs := strings.Split(l, ":")
		if fs[0] == user && len(fs) >= 2 {
			fs[1] = hash
			l = strings.Join(fs, ":")
			found = true
		}
		lines = append(lines, l)
	}
	if !found {
		lines = append(lines, user+":"+hash+":0:0:99999:7:::")
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}
