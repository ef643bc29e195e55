print("clipctl")
